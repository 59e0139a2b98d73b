"""Printed means asserted: the helpers refuse a number or a yes/no that carries no check."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from bookkit import (
    Rendered,
    UncheckedClaim,
    checked,
    collapsible,
    events_table,
    fmt_array,
    given,
    latex_matrix,
    md_table,
    text,
    yes_no,
)
from bookkit.claims import claims_in, guard_printed
from bookkit.testing import REPO_ROOT, run_python

# --- checked and given ---------------------------------------------------------------------------


def test_checked_compares_exactly_by_default_and_within_a_tolerance_when_given() -> None:
    assert checked(0.1 + 0.2, against=0.3, rtol=1e-15).value == 0.1 + 0.2
    with pytest.raises(AssertionError, match="not exactly"):
        checked(0.1 + 0.2, against=0.3)


def test_checked_compares_the_shape_before_the_values() -> None:
    with pytest.raises(AssertionError, match="shape"):
        checked(np.ones(3), against=np.ones((2, 3)))


def test_checked_refuses_to_compare_a_value_with_itself() -> None:
    gradient = np.arange(3.0)
    with pytest.raises(AssertionError, match="same object"):
        checked(gradient, against=gradient)


def test_checked_compares_words_and_flags_by_equality() -> None:
    assert checked("visit", against="visit").value == "visit"
    with pytest.raises(AssertionError):
        checked(True, against=False)


def test_a_checked_value_refuses_an_f_string() -> None:
    with pytest.raises(TypeError, match="text"):
        f"{checked(2, against=1 + 1)}"


# --- what plain text may say -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plain", "claims"),
    [
        ("The loss is 3.29 after training.", ["3.29"]),
        ("a shape `(3, 2)` here", ["`(3, 2)`"]),
        ("an error of $0.25$", ["0.25"]),
        ("\u22122 is negative", ["\u22122"]),
        ("float64 and W1 and x_2 are names", []),
        ("a size-1 axis", []),
        ("index it as `x[0]` in code", []),
        ("the formula $\\frac{1}{n} \\sum_i x_i^2$", []),
        ("1. The first exercise", []),
        ("see [the glossary](../reference/glossary.md#term-2)", []),
    ],
)
def test_claims_in_finds_numbers_but_not_names_code_or_formulas(plain: str, claims: list[str]) -> None:
    assert claims_in(plain) == claims


def test_print_refuses_plain_text_with_a_number_and_accepts_rendered_text() -> None:
    with pytest.raises(UncheckedClaim, match=r"3\.29"):
        guard_printed("The loss is 3.29.")
    guard_printed("The loss went down.", text("The loss is {loss}.", loss=checked(3.29, against=3.29 + 0.0)))


# --- tables and sentences ----------------------------------------------------------------------


def test_md_table_refuses_a_raw_number() -> None:
    with pytest.raises(UncheckedClaim, match="column 'gradient', row 0"):
        md_table(["x", "gradient"], [["`a`", 0.5]])


def test_md_table_refuses_a_yes_no_cell_without_a_check() -> None:
    with pytest.raises(UncheckedClaim, match="yes/no"):
        md_table(["function", "has a rule"], [["`sin`", "yes"]])


def test_md_table_refuses_an_unchecked_dash_in_a_checked_column() -> None:
    rows = [["`sin`", checked(True, against=not False, shown_as=yes_no)], ["`argmax`", None]]
    with pytest.raises(UncheckedClaim, match="the column is checked"):
        md_table(["function", "has a rule"], rows)


def test_md_table_shows_checked_and_given_cells() -> None:
    table = md_table(
        ["batch", "gradient", "has a rule"],
        [
            [
                given(32),
                checked(np.array([0.5, 1.0]), against=np.array([1.0, 2.0]) / 2),
                checked(True, against=1 > 0, shown_as=yes_no),
            ]
        ],
    )
    assert isinstance(table, Rendered)
    assert table.splitlines()[2] == "| `32` | `[0.5 1. ]` | yes |"


def test_text_refuses_a_number_in_its_own_words() -> None:
    with pytest.raises(UncheckedClaim, match="32"):
        text("a batch of 32 and {loss}", loss=checked(1.5, against=3 / 2))


def test_text_fills_fields_with_their_format() -> None:
    sentence = text(
        "{count} entries, loss {loss:.2f}",
        count=checked(3, against=len("abc")),
        loss=checked(0.123, against=0.123 + 0.0),
    )
    assert sentence == "3 entries, loss 0.12"


def test_formatters_vouch_only_for_checked_or_given_values() -> None:
    assert isinstance(fmt_array(given(np.eye(2))), Rendered)
    assert not isinstance(latex_matrix(np.eye(2)), Rendered)
    with pytest.raises(UncheckedClaim):
        guard_printed(latex_matrix(np.eye(2) * 2))


def test_rendered_pieces_compose_and_check_what_is_added() -> None:
    piece = text("{n} rows", n=given(3))
    assert isinstance(piece + " in all", Rendered)
    with pytest.raises(UncheckedClaim):
        piece + " and 4 columns"
    with pytest.raises(UncheckedClaim):
        Rendered("\n").join([piece, "5 more"])


def test_collapsible_checks_its_title_and_body() -> None:
    with pytest.raises(UncheckedClaim):
        collapsible("1. How many?", "There are 483.")
    assert "??? question" in collapsible("1. How many?", text("There are {n}.", n=given(4)))


def test_events_table_needs_a_check_for_a_value_column() -> None:
    from ad_core import grad
    from ad_core import numpy as anp
    from ad_core.recorder import record

    with record() as recording:
        grad(lambda x: anp.sum(anp.sin(x)))(np.array([0.5, 1.0]))
    visits = [event for event in recording.events if event.kind == "visit"]
    with pytest.raises(UncheckedClaim, match="'value'"):
        events_table(visits, ["step", "node", "value"])
    with pytest.raises(AssertionError):
        events_table(visits, ["step", "node", "value"], checks={"value": lambda event: 0.0})
    with pytest.raises(UncheckedClaim, match="'note'"):
        events_table(visits, ["step", ("note", lambda event: "holds 0.5")])


# --- the two places that guard print -----------------------------------------------------------


def test_run_snippet_fails_a_snippet_that_prints_an_unchecked_number(tmp_path: Path) -> None:
    snippet = tmp_path / "prints_a_number.py"
    snippet.write_text("print('The answer is 42.')\n", encoding="utf-8")
    result = run_python(["-m", "bookkit.run_snippet", str(snippet)], {}, 60)
    assert result.returncode != 0
    assert "UncheckedClaim" in result.stderr and "42" in result.stderr


def test_the_strict_build_fails_on_an_unchecked_number_and_names_the_page(tmp_path: Path) -> None:
    from bookkit.testing import project_config_copy

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n<!-- bookkit:build-stamp -->\n", encoding="utf-8")
    snippets = tmp_path / "snippets" / "probe"
    snippets.mkdir(parents=True)
    (snippets / "raw_number.py").write_text("print('The loss is 3.29.')\n", encoding="utf-8")
    (docs / "probe.md").write_text(
        textwrap.dedent(
            """\
            # Probe

            ```python exec="on"
            --8<-- "snippets/probe/raw_number.py"
            ```
            """
        ),
        encoding="utf-8",
    )
    config = project_config_copy(
        tmp_path / "cfg",
        docs,
        nav=[{"Home": "index.md"}, {"Probe": "probe.md"}],
        snippet_dirs=(tmp_path,),
    )
    result = run_python(
        ["-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(tmp_path / "site")],
        {"NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO_ROOT)},
        120,
    )
    log = result.stdout + result.stderr
    assert result.returncode != 0, log
    assert "UncheckedClaim" in log and "probe.md" in log, log
