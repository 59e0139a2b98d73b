"""bookkit's text helpers: arrays, shapes, tables, LaTeX and collapsible blocks."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bookkit import collapsible, fmt_array, fmt_number, fmt_shape, given, latex_matrix, md_table


def test_fmt_array_matches_numpy_printing_at_the_same_precision() -> None:
    a = np.random.default_rng(0).standard_normal((3, 4))
    with np.printoptions(precision=3, suppress=True):
        assert fmt_array(a, precision=3) == np.array2string(a)


def test_fmt_array_ignores_global_print_options() -> None:
    a = np.linspace(0.0, 1.0, 7)
    before = fmt_array(a)
    with np.printoptions(precision=1, linewidth=20, floatmode="fixed"):
        assert fmt_array(a) == before


def test_fmt_array_prints_negative_zero_as_zero() -> None:
    assert fmt_array(np.array([-0.0, 1.5])) == fmt_array(np.array([0.0, 1.5]))
    assert fmt_array(-0.0) == "0.0"


@pytest.mark.parametrize(
    ("value", "text"),
    [(2.0, "2.0"), (0.5, "0.5"), (1 / 3, "0.3333"), (3, "3"), (np.int64(-4), "-4"), (True, "True")],
)
def test_fmt_number(value: object, text: str) -> None:
    assert fmt_number(value) == text


def test_fmt_number_rounds_to_precision() -> None:
    value = np.random.default_rng(1).uniform(0.1, 0.9)
    assert float(fmt_number(value, precision=2)) == pytest.approx(round(value, 2))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (1, 0, 4)])
def test_fmt_shape_is_numpy_shape_text(shape: tuple) -> None:
    assert fmt_shape(shape) == str(np.zeros(shape).shape)
    assert fmt_shape(np.zeros(shape)) == str(shape)


def test_md_table_shape_and_alignment() -> None:
    table = md_table(["a", "b"], [[given(1), "x"], [given(2.5), None]], align=["left", "r"])
    lines = table.strip().splitlines()
    assert lines[1] == "| :--- | ---: |"
    assert len(lines) == 4
    assert all(line.count("|") == 3 for line in lines)
    assert "—" in lines[3]


def test_md_table_keeps_pipes_inside_math_out_of_the_cell_syntax() -> None:
    table = md_table(["norm"], [["$|x|$ and a|b"]])
    row = table.strip().splitlines()[2]
    assert row.count("|") - row.count(r"\|") == 2
    assert "|" not in re.search(r"\$[^$]*\$", row).group(0)


def test_md_table_rejects_ragged_rows() -> None:
    with pytest.raises(ValueError, match="row 0"):
        md_table(["a", "b"], [["x"]])


def test_latex_matrix_round_trips_the_values() -> None:
    a = np.random.default_rng(2).integers(-9, 9, size=(2, 3)).astype(float)
    text = latex_matrix(a)
    body = text.removeprefix(r"\begin{bmatrix}").removesuffix(r"\end{bmatrix}")
    parsed = np.array([[float(v) for v in row.split("&")] for row in body.split(r"\\")])
    np.testing.assert_array_equal(parsed, a)


def test_latex_matrix_vector_orientation() -> None:
    v = np.array([1.0, 2.0, 3.0])
    assert latex_matrix(v).count(r"\\") == 2
    assert latex_matrix(v, vector="row").count("&") == 2
    assert latex_matrix(np.float64(2.5)) == "2.5"
    with pytest.raises(ValueError):
        latex_matrix(np.zeros((2, 2, 2)))


def test_collapsible_indents_the_body() -> None:
    block = collapsible('Why "sum"?', "First line.\n\n| a |\n| --- |")
    lines = block.splitlines()
    assert lines[0] == '??? question "Why &quot;sum&quot;?"'
    assert all(line.startswith("    ") or not line for line in lines[1:])
    assert collapsible("t", "b", kind="note", open=True).startswith('???+ note "t"')
