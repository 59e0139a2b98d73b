"""The chapter "Checking gradients": the step-size plot, its table, and the check tables."""

from __future__ import annotations

import numpy as np

from bookkit.testing import table_rows


def test_page_embeds_the_step_size_figure(html: str) -> None:
    assert 'aria-label="Error of forward and central differences against the step size"' in html
    assert html.count("<svg") >= 1


def test_best_steps_follow_the_rounding_truncation_balance(text: str) -> None:
    assert "within a factor of 3 of the predictions" in text
    rows = [row for row in table_rows(text) if len(row) == 7 and row[1] in {"float64", "float32"}]
    assert len(rows) == 4
    for method, dtype, epsilon, _, best_step, smallest_error, _ in rows:
        machine_epsilon = float(np.finfo(getattr(np, dtype)).eps)
        assert float(epsilon) == float(f"{machine_epsilon:.1e}")
        step_power, error_power = (1 / 2, 1 / 2) if method == "forward difference" else (1 / 3, 2 / 3)
        # The page says "within a factor of 3 of the predictions".
        assert machine_epsilon**step_power / 3 < float(best_step) < machine_epsilon**step_power * 3
        # At the best step, truncation and rounding are both about eps^(1/2) or eps^(2/3).
        assert float(smallest_error) < 100 * machine_epsilon**error_power


def test_shapes_first_table(text: str) -> None:
    rows = [row for row in table_rows(text) if len(row) == 5 and row[3] in {"True", "False"}]
    assert len(rows) == 4 and all(row[3] == "True" for row in rows)
    for row in rows:
        assert row[4].startswith("passes" if row[1] == row[2] else "fails: shape")


def test_buggy_mean_is_caught_only_on_inputs_with_several_elements(text: str) -> None:
    rows = [row for row in table_rows(text) if len(row) == 4 and row[2] in {"passes", "fails"}]
    assert [(int(row[1]) == 1) for row in rows] == [(row[2] == "passes") for row in rows]
    assert {row[2] for row in rows} == {"passes", "fails"}


def test_order_above_one_recursion_is_in_the_listing(text: str) -> None:
    # The listing the page points to for order > 1 must hold the recursion itself.
    assert "def _check_derivatives" in text
    assert "order - 1" in text[text.index("def _check_derivatives"):]


def test_random_direction_answer_gives_the_orthogonality_reason(text: str) -> None:
    assert "nonzero component along every coordinate (with probability one)" not in text
    assert "the direction of all ones is orthogonal to \\(e\\), and a comparison along it passes" in text


def test_a_square_matrix_hides_a_missing_transpose_only_from_the_shape_check() -> None:
    """The note said square matrices hide a missing transpose; `check_grads` compares values
    and catches it on a random square matrix. Only a symmetric one hides it."""
    from pathlib import Path

    import pytest

    import ad_core.numpy as anp
    from ad_core.extend import defvjp, primitive
    from ad_core.test_util import check_grads

    @primitive
    def matvec(a, x):
        return a @ x

    defvjp(matvec, lambda ans, a, x: lambda g: anp.outer(g, x),
           lambda ans, a, x: lambda g: anp.dot(a, g))  # should be dot(g, a): no transpose

    rng = np.random.default_rng(0)
    square = rng.standard_normal((3, 3))
    x = rng.standard_normal(3)
    check = check_grads(matvec, argnum=1, modes=("rev",), order=1)
    with pytest.raises(AssertionError):
        check(square, x)
    check(square + square.T, x)  # symmetric: the wrong rule passes
    page_path = Path(__file__).parents[2] / "docs" / "part1" / "checking-gradients.md"
    page = page_path.read_text(encoding="utf-8")
    assert "square or symmetric\n    matrices hide a missing" not in page
    assert "a symmetric one\n    from the values as well" in page
