"""The built chapter "Derivatives as linear maps" shows the traces and counts the engine gives.

Expected values are computed here from NumPy, HIPS/autograd (as an independent reference) and
`ad_core`, then formatted with the same `bookkit` helpers the snippets use.
"""

from __future__ import annotations

import autograd
import autograd.numpy as np_ag
import numpy as np

from bookkit import latex_matrix
from bookkit.testing import assert_table_row, shown

X1, X2 = 2.0, 5.0


def test_primal_and_tangent_trace(text: str) -> None:
    primal = {
        r"v_{1} = \ln v_{-1}": (np.log(X1), 1 / X1),
        r"v_{2} = v_{-1} \times v_{0}": (X1 * X2, X2),
        r"v_{3} = \sin v_{0}": (np.sin(X2), 0.0),
        r"v_{4} = v_{1} + v_{2}": (np.log(X1) + X1 * X2, 1 / X1 + X2),
        r"v_{5} = v_{4} - v_{3}": (np.log(X1) + X1 * X2 - np.sin(X2), 1 / X1 + X2),
    }
    for formula, (value, tangent) in primal.items():
        line = next((line for line in text.splitlines() if formula in line), None)
        assert line is not None, f"no row for {formula}"
        cells = [cell.strip() for cell in line.split("|")]
        assert shown(value) in cells, (formula, cells)
        assert shown(tangent) in cells, (formula, cells)


def test_adjoint_trace_matches_autograd(text: str) -> None:
    def f(x):
        return np_ag.log(x[0]) + x[0] * x[1] - np_ag.sin(x[1])

    reference = autograd.grad(f)(np.array([X1, X2]))
    assert latex_matrix(reference, vector="row") in text
    # The second arrival at v_0: contribution x1 from multiply, total x1 - cos x2.
    second_arrival = next(line for line in text.splitlines() if r"\bar{v}_{0} = \bar{v}_{0} +" in line)
    cells = [cell.strip() for cell in second_arrival.split("|")]
    assert shown(X1) in cells and shown(reference[1]) in cells


def test_pass_counts(text: str) -> None:
    for n, m in [(1, 1), (4, 1), (16, 1), (64, 1), (1, 4), (1, 16), (1, 64), (16, 16), (64, 4)]:
        # f = tanh(W x): two primitives (dot, tanh), one traced argument each. Forward mode
        # evaluates f and calls both JVP rules in each of its n passes; reverse mode evaluates f
        # once and calls both VJP rules in each of its m backward passes. At n = m the rule
        # calls tie and forward mode's extra primal evaluations decide for reverse, except at
        # n = m = 1, where one pass each does the same work (a tie).
        forward, reverse = 2 * n + 2 * n, 2 + 2 * m
        verdict = "forward" if forward < reverse else "reverse" if reverse < forward else "tie"
        assert_table_row(text, str(n), str(m), str(2 * n), str(2 * n), "2", str(m), str(2 * m), verdict)
        if n == m:
            assert verdict == ("tie" if n == 1 else "reverse")
    # The prose may not say that n = m always favours reverse mode: the (1, 1) row is a tie.
    assert r"At \(n = m\) the rule calls tie, and forward" not in text


def test_cheap_gradient_ratio(text: str) -> None:
    # For m = 1: reverse costs (2 + 2) / 2 of f's work, whatever n; forward n times that.
    assert r"cost 2 times the work of evaluating \(f\) once in reverse mode" in text
    assert r"128 times at \(n = 64\)" in text
