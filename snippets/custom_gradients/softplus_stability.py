"""The naive softplus gradient overflows to nan at large x; the declared rule sigmoid(x) does not."""

from pathlib import Path

import numpy as np

from ad_core import grad
from bookkit import central_differences, checked, given, load_snippet_module, md_table, text

rules = load_snippet_module(Path(__file__).with_name("_rules.py"))


def closed_form_sigmoid(x):  # NumPy, by the branch that never forms exp of a large number
    return np.where(x >= 0, 1.0 / (1.0 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1.0 + np.exp(-np.abs(x))))


points = [-30.0, 0.0, 5.0, 30.0, 710.0, 1000.0]
rows = []
with np.errstate(over="ignore", invalid="ignore"):
    for x in points:
        naive = float(grad(rules.naive_softplus)(x))
        declared = float(grad(rules.softplus)(x))
        # Where exp(x) is finite the naive rule is right: central differences confirm it.
        expected_naive = float("nan") if np.isinf(np.exp(x)) else float(closed_form_sigmoid(np.array(x)))
        if np.isfinite(np.exp(x)) and abs(x) < 50:
            assert abs(central_differences(lambda v: np.logaddexp(0.0, v), x) - naive) < 1e-7
        rows.append([
            given(x),
            checked(naive, against=expected_naive, rtol=1e-12, shown_as=lambda v: f"`{v:.6g}`"),
            checked(declared, against=float(closed_form_sigmoid(np.array(x))), rtol=1e-15,
                    shown_as=lambda v: f"`{v:.6g}`"),
        ])
print(md_table(["`x`", "`grad(naive_softplus)`", "`grad(softplus)`, declared rule"], rows))
print()
with np.errstate(over="ignore", invalid="ignore"):
    overflow = next(x for x in points if np.isinf(np.exp(x)))
    print(text(
        "At {x}, `exp(x)` is {inf} in float64; the chain rule through the naive "
        "body multiplies the VJP of `log1p`, $1/(1 + e^x) = 0$, by the VJP of `exp`, $e^x$: zero "
        "times infinity, which is {nan}. The declared rule never forms $e^x$, and "
        "the second derivative through it, `grad(grad(softplus))(0.0)`, is {second}, "
        "$\\sigma(0)(1 - \\sigma(0))$.",
        x=given(overflow),
        inf=checked(float(np.exp(overflow)), against=float("inf"), shown_as=lambda v: f"`{v}`"),
        nan=checked(float(grad(rules.naive_softplus)(overflow)), against=float("nan"),
                    shown_as=lambda v: f"`{v}`"),
        second=checked(float(grad(grad(rules.softplus))(0.0)), against=0.5 * 0.5),
    ))
