"""The page-reading helpers in `bookkit.testing` that the chapter tests share."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bookkit import fmt_array
from bookkit.testing import (
    array_from_cell,
    assert_hand_vs_engine_rows,
    assert_table_row,
    page_html,
    row_starting_with,
    shown,
    table_row_pattern,
    table_rows,
)

TEXT = "Intro line | not a row\n| x | f(x) | shape |\n| 1.5 | [1. 2.] | (2,) |\n| 2 | 3 | () |\nEnd."


def test_table_rows_splits_every_row_into_stripped_cells() -> None:
    assert table_rows(TEXT) == [["x", "f(x)", "shape"], ["1.5", "[1. 2.]", "(2,)"], ["2", "3", "()"]]


def test_row_starting_with_finds_the_first_cell_only() -> None:
    assert row_starting_with(TEXT, "2") == "| 2 | 3 | () |"
    with pytest.raises(AssertionError, match="no table row starts with '3'"):
        row_starting_with(TEXT, "3")


def test_table_row_pattern_wants_adjacent_cells_in_order_with_folded_whitespace() -> None:
    assert table_row_pattern("[1.  2.]", "(2,)").search(TEXT)
    assert not table_row_pattern("(2,)", "[1. 2.]").search(TEXT)
    assert not table_row_pattern("1.5", "(2,)").search(TEXT)
    assert not table_row_pattern("1", "[1. 2.]").search(TEXT)


def test_assert_table_row_fails_with_the_row_it_wanted() -> None:
    assert_table_row(TEXT, "2", "3")
    with pytest.raises(AssertionError, match=r"no table row 2 \| 4"):
        assert_table_row(TEXT, "2", "4")


def test_shown_is_fmt_array_with_whitespace_folded() -> None:
    value = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert "\n" in fmt_array(value)
    assert shown(value) == " ".join(fmt_array(value).split())
    assert "  " not in shown(value) and "\n" not in shown(value)


def test_page_html_reads_a_built_page_and_names_a_missing_one(tmp_path: Path) -> None:
    (tmp_path / "part1" / "x").mkdir(parents=True)
    (tmp_path / "part1" / "x" / "index.html").write_text("<p>hi</p>", encoding="utf-8")
    assert page_html(tmp_path, "part1/x/") == "<p>hi</p>"
    with pytest.raises(FileNotFoundError, match="no built page"):
        page_html(tmp_path, "part1/y/")


def _comparison_page() -> tuple[str, dict, dict]:
    from bookkit.gradient_comparison import compare, comparison_summary, comparison_table

    hand = {"a": np.ones((2, 3)), "b": np.full(4, 0.1 + 0.2)}
    engine = {"a": np.ones((2, 3)), "b": np.full(4, 0.3)}
    comparisons = [compare(name, hand[name], engine[name]) for name in hand]
    shapes = {name: value.shape for name, value in engine.items()}
    close, bits = {"a": True, "b": True}, {"a": True, "b": False}
    page = (
        comparison_table(comparisons, shapes, close, bits, batch_size=4)
        + "\n\n"
        + comparison_summary(comparisons, close, bits, batch_size=4, engine="ad_core")
    )
    # page_text shows a table row as `| cell | cell |`; the Markdown source has the same shape.
    text = "\n".join(" ".join(line.replace("`", "").split()) for line in page.splitlines())
    return text, hand, engine


def test_comparison_summary_names_the_exact_and_the_approximate_gradients() -> None:
    from bookkit.gradient_comparison import compare, comparison_summary

    comparisons = [compare("a", np.ones(2), np.ones(2)), compare("b", np.ones(2), np.ones(2) + 1e-15)]
    close, bits = {"a": True, "b": True}, {"a": True, "b": False}
    with_engine = comparison_summary(comparisons, close, bits, batch_size=4, engine="ad_core")
    assert with_engine.startswith("All 2 gradients have the right shape and agree with `ad_core` to `rtol=")
    assert "Bit-equal at $B = 4$: 1 of 2 (`da`)." in with_engine
    assert "and agree to `rtol=" in comparison_summary(comparisons[:1], close, bits, batch_size=4)
    assert comparison_summary(comparisons[:1], close, bits, batch_size=4).endswith("1 of 1.")


def test_comparison_table_checks_its_cells_against_the_predictions() -> None:
    from bookkit.gradient_comparison import compare, comparison_table

    comparisons = [compare("a", np.ones(2), np.ones(2))]
    with pytest.raises(AssertionError):  # predicted not bit-equal, but it is
        comparison_table(comparisons, {"a": (2,)}, {"a": True}, {"a": False}, batch_size=4)
    with pytest.raises(AssertionError):  # central differences disagree with the engine
        comparison_table(comparisons, {"a": (2,)}, {"a": False}, {"a": True}, batch_size=4)
    with pytest.raises(AssertionError):  # the tensor's own shape is not the gradient's
        comparison_table(comparisons, {"a": (1, 2)}, {"a": True}, {"a": True}, batch_size=4)


def test_assert_hand_vs_engine_rows_checks_shape_reference_and_exact_cell() -> None:
    text, hand, engine = _comparison_page()
    assert_hand_vs_engine_rows(text, ["a", "b"], hand, engine, reference=hand)
    with pytest.raises(AssertionError):  # the reference disagrees with the hand-written gradient
        assert_hand_vs_engine_rows(text, ["a"], hand, engine, reference={"a": np.zeros((2, 3))})
    with pytest.raises(AssertionError):  # the page says "yes" where the gradients differ
        assert_hand_vs_engine_rows(text, ["a"], hand, {"a": np.ones((2, 3)) + 1e-15}, reference=hand)
    with pytest.raises(AssertionError, match="no table row starts with 'dc'"):
        assert_hand_vs_engine_rows(text, ["c"], {"c": np.ones(1)}, engine, reference=hand)


def test_run_python_runs_this_interpreter_fresh_with_the_extra_environment(tmp_path: Path) -> None:
    from bookkit.testing import run_python

    code = (
        "import os, sys; "
        "print(os.environ['BOOK_X'], os.environ['PYTHONDONTWRITEBYTECODE'], os.getcwd()); sys.exit(3)"
    )
    result = run_python(["-c", code], {"BOOK_X": "y"}, timeout=60, cwd=tmp_path)
    assert result.returncode == 3
    assert result.stdout.split() == ["y", "1", str(tmp_path)]


def test_array_from_cell_reads_what_fmt_array_inline_prints() -> None:
    from bookkit import fmt_array_inline

    values = np.array([1.0, -2.5, 1e-3, 0.0])
    np.testing.assert_allclose(array_from_cell(fmt_array_inline(values)), values, atol=5e-5)
    np.testing.assert_array_equal(array_from_cell("`[1. 2.]`"), [1.0, 2.0])
    with pytest.raises(ValueError, match="not an array cell"):
        array_from_cell("1.0 2.0")


def test_nav_pages_and_page_of_test_read_the_nav(tmp_path) -> None:
    from bookkit.testing import chapters, nav_pages, page_of_test

    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "markdown_extensions:\n"
        "  - pymdownx.snippets:\n"
        "      base_path: [!relative $config_dir]\n"
        "nav:\n"
        "  - Home: index.md\n"
        "  - Part I · One:\n"
        "      - First chapter: part1/first-chapter.md\n"
        "  - Reference:\n"
        "      - Glossary: reference/glossary.md\n",
        encoding="utf-8",
    )
    assert [(p.name, p.url) for p in nav_pages(config)] == [
        ("home", ""), ("first_chapter", "part1/first-chapter/"), ("glossary", "reference/glossary/")
    ]
    assert [p.source for p in chapters(config)] == ["part1/first-chapter.md"]
    assert page_of_test("tests/snippets/test_first_chapter.py", config).url == "part1/first-chapter/"
    assert page_of_test("test_home.py", config).source == "index.md"
    with pytest.raises(LookupError, match=r"test_second_chapter\.py"):
        page_of_test("tests/snippets/test_second_chapter.py", config)
