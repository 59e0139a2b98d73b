"""show_source, source_location and source_map read the engine's real code."""

from __future__ import annotations

import inspect
import re

import pytest

import ad_core
from ad_core import core
from bookkit import engine_index, show_excerpt, show_source, source_location, source_map
from bookkit.source import REPO_ROOT


def test_source_location_points_at_the_definition() -> None:
    path, first, last = source_location(core.backward_pass)
    lines = (REPO_ROOT / path).read_text(encoding="utf-8").splitlines()
    assert path == "ad_core/core.py"
    assert lines[first - 1].lstrip().startswith(("def backward_pass", "@"))
    assert first < last
    assert inspect.getsource(core.backward_pass).strip().endswith(lines[last - 1].strip())


def test_source_location_sees_through_decorators() -> None:
    path, first, _ = source_location(ad_core.grad)
    text = (REPO_ROOT / path).read_text(encoding="utf-8").splitlines()
    assert any("def grad" in line for line in text[first - 1 : first + 3])


def test_show_source_caption_and_line_numbers() -> None:
    path, first, last = source_location(core.backward_pass)
    listing = show_source(core.backward_pass)
    assert listing.splitlines()[0] == f"`{path}` · `backward_pass` · lines {first}\N{EN DASH}{last}"
    assert f'linenums="{first}"' in listing
    opening = next(line for line in listing.splitlines() if line.startswith("```"))
    assert opening.startswith(("```python", "```{.python"))
    code = listing.split(opening, 1)[1].split("\n", 1)[1].rsplit("```", 1)[0]
    assert len(code.strip("\n").splitlines()) == last - first + 1


def test_show_excerpt_of_a_wide_line_scales_to_the_column() -> None:
    """An excerpt of engine lines wider than 80 characters gets book.css's fitting class, as a
    full listing does (they scrolled sideways on four pages); a narrow excerpt keeps its size."""
    source = inspect.getsource(core.backward_pass).splitlines()
    wide = next(line.strip() for line in source if len(line.strip()) > 80)
    narrow = next(line.strip() for line in source if 10 < len(line.strip()) < 60)
    wide_opening = show_excerpt(core.backward_pass, re.escape(wide), full_listing="x").splitlines()[2]
    narrow_opening = show_excerpt(core.backward_pass, re.escape(narrow), full_listing="x").splitlines()[2]
    assert re.match(r"```\{\.python \.bk-cols-\d+ linenums=", wide_opening), wide_opening
    assert narrow_opening.startswith("```python linenums="), narrow_opening


def test_show_source_rejects_highlights_outside_the_listing() -> None:
    _, first, last = source_location(core.backward_pass)
    assert 'hl_lines="2"' in show_source(core.backward_pass, hl_lines=[first + 1])
    with pytest.raises(ValueError):
        show_source(core.backward_pass, hl_lines=[last + 1])


def test_call_index_finds_real_calls() -> None:
    index = engine_index()
    # backward_pass's body names toposort; make_vjp's body names backward_pass.
    assert "ad_core.tracer:toposort" in index.calls["ad_core.core:backward_pass"]
    assert "ad_core.core:backward_pass" in index.called_by["ad_core.tracer:toposort"]
    callers_in_source = {
        key
        for key, definition in index.definitions.items()
        if re.search(r"\bbackward_pass\(", ast_source(definition)) and key != "ad_core.core:backward_pass"
    }
    assert callers_in_source <= set(index.called_by["ad_core.core:backward_pass"])


def ast_source(definition) -> str:
    lines = (REPO_ROOT / definition.path).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[definition.first_line - 1 : definition.last_line])


def test_source_map_columns_come_from_the_code() -> None:
    table = source_map([(core.backward_pass, "g, end node → cotangent of the root", "reverse pass")])
    header, _, row = table.strip().splitlines()
    # Paths and names are inline code that may break after `.` or `/` (<wbr> adds no text).
    # Underscores are escaped (`\_`), or Markdown would read `__init__` as bold.
    cells = [cell.strip().replace("<wbr>", "").replace("\\_", "_") for cell in row.strip("|").split("|")]
    cells = [re.sub(r"</?code>", "`", cell) for cell in cells]
    path, first, last = source_location(core.backward_pass)
    assert cells[0] == f"`{path}`"
    assert cells[1] == "`backward_pass`"
    assert cells[2] == f"{first}\N{EN DASH}{last}"
    assert "`tracer.toposort`" in cells[4]
    assert cells[5:] == ["g, end node → cotangent of the root", "reverse pass"]
    assert header.count("|") == 8


def test_source_map_accepts_index_keys_and_rejects_unknown_objects() -> None:
    assert "<code>toposort</code>" in source_map([("ad_core.tracer:toposort", "node → list", "order")])
    with pytest.raises(KeyError):
        source_map([("ad_core.tracer:no_such_function", "x", "y")])
    with pytest.raises(TypeError):
        source_map([(len, "x", "y")])


def test_rule_registrations_read_each_defvjp_statement_whole_and_in_order() -> None:
    import ad_core.numpy as anp
    from bookkit.source import rule_registrations

    rules_module = inspect.getmodule(anp.exp.vjps[0])
    file_lines = inspect.getsource(rules_module).splitlines()
    rules = rule_registrations(rules_module, ["anp.multiply", "anp.exp"])
    assert [rule.primitive for rule in rules] == ["anp.multiply", "anp.exp"]
    for rule in rules:
        assert rule.path == source_location(anp.exp.vjps[0])[0]
        assert file_lines[rule.first_line - 1] == rule.lines[0]
        assert rule.lines[0].startswith(f"defvjp({rule.primitive},")
        statement = "\n".join(rule.lines)
        assert statement.count("(") == statement.count(")")
        assert list(rule.lines) == file_lines[rule.first_line - 1 : rule.first_line - 1 + len(rule.lines)]
        assert rule.text == " ".join(rule.lines)
    with pytest.raises(ValueError, match=r"anp\.not_a_primitive 0 times"):
        rule_registrations(rules_module, ["anp.not_a_primitive"])


def test_rules_listing_numbers_lines_with_the_file_line_numbers() -> None:
    from bookkit.source import RuleRegistration, rules_listing

    rules = [
        RuleRegistration("m.py", "anp.f", 7, ("defvjp(anp.f,", "       g)")),
        RuleRegistration("m.py", "anp.h", 120, ("defvjp(anp.h, k)",)),
    ]
    assert rules_listing(rules) == (
        "```python\n   7  defvjp(anp.f,\n   8         g)\n 120  defvjp(anp.h, k)\n```"
    )


def test_source_line_finds_the_one_matching_line_of_the_live_source() -> None:
    from bookkit.source import source_line

    path, line, text = source_line(core.backward_pass, r"^def backward_pass\(")
    file_lines = (REPO_ROOT / path).read_text(encoding="utf-8").splitlines()
    assert path == "ad_core/core.py" and text.startswith("def backward_pass(")
    assert file_lines[line - 1].strip() == text
    _, first, last = source_location(core.backward_pass)
    assert first <= line <= last
    with pytest.raises(ValueError, match="0 lines"):
        source_line(core.backward_pass, "no such code here")
    with pytest.raises(ValueError, match="expected 1"):
        source_line(core.backward_pass, r"\w")  # every non-blank line matches


def test_section_location_names_the_lines_a_page_includes(tmp_path) -> None:
    from bookkit.source import section_location

    module = tmp_path / "_helper.py"
    module.write_text(
        "x = 1\n"
        "# --8<-- [start:shown]\n"
        "y = x + 1\n"
        "z = y * 2\n"
        "# --8<-- [end:shown]\n"
        "# --8<-- [start:one]\n"
        "w = 3\n"
        "# --8<-- [end:one]\n",
        encoding="utf-8",
    )
    assert str(section_location(module, "shown")) == f"`{module.as_posix()}` lines 3\u20134"
    assert str(section_location(module, "one")) == f"`{module.as_posix()}` line 7"
    with pytest.raises(ValueError):
        section_location(module, "missing")


def test_located_gives_a_snippet_module_function_its_repository_path() -> None:
    from bookkit import load_snippet_module
    from bookkit.source import located

    training = load_snippet_module("snippets/network_by_hand/_training.py")
    lines, first = inspect.getsourcelines(training.calibrate_batchnorm)
    expected = f"`snippets/network_by_hand/_training.py` lines {first}\u2013{first + len(lines) - 1}"
    assert str(located(training.calibrate_batchnorm)) == expected
