"""Self-test for "Extending the engine": every answer is computed and checked here before it is shown."""

import contextlib
import io
import math
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, hessian
from ad_core.extend import defvjp, primitive
from ad_core.test_util import ATOL, GradientCheckError, check_grads
from bookkit import checked, collapsible, given, latex_matrix, load_snippet_module, text

with contextlib.redirect_stdout(io.StringIO()):  # the primitives' own tables belong to their blocks
    logsumexp = load_snippet_module(Path(__file__).with_name("logsumexp_primitive.py")).logsumexp
    softplus = load_snippet_module(Path(__file__).with_name("softplus_primitive.py")).softplus

rng = np.random.default_rng(1111)

# 1. Shifts.
z, shift = rng.standard_normal(4), 1000.0
softmax = np.exp(z) / np.exp(z).sum()  # no overflow for a standard normal z
print(collapsible(
    "Why may `logsumexp` subtract the maximum before calling `exp`?",
    text(
        "Because $\\log\\sum_j e^{{z_j + c}} = c + \\log\\sum_j e^{{z_j}}$ for any constant $c$. "
        "With a random `z` and $c$ = {shift:g}, `logsumexp(z + c) - logsumexp(z)` is "
        "{difference:.10f}, and the gradient (softmax) does not change: {gradient}.",
        shift=given(shift),
        # |ans| near 1000 leaves about 1e-13 of absolute rounding in the difference
        difference=checked(logsumexp(z + shift) - logsumexp(z), against=shift, rtol=1e-15),
        gradient=checked(grad(logsumexp)(z + shift), against=softmax, rtol=1e-12),
    ),
))

# 2. The Hessian of logsumexp.
H = hessian(logsumexp)(z)
row_sums = np.abs(H.sum(axis=1)).max()
print(collapsible(
    "What is the Hessian of `logsumexp`, and why does `check_grads(order=2)` pass?",
    text(
        "$H = \\operatorname{{diag}}(p) - p p^\\top$ with $p = \\operatorname{{softmax}}(z)$. The "
        "VJP closure computes `exp(z - ans)` with `anp`, so the engine differentiates it again. "
        "For the same `z`:\n\n$$\nH = {H}\n$$\n\nEach row sums to zero (largest row sum "
        "{row_sums:.0e}, rounding): adding a constant to every logit does not change the gradient.",
        H=latex_matrix(checked(H, against=np.diag(softmax) - np.outer(softmax, softmax), rtol=1e-10,
                               atol=1e-15)),
        row_sums=checked(row_sums, against=0.0, atol=1e-15),
    ),
))


# 3. A rule that uses the output in an unstable way.
@primitive
def softplus_unstable_rule(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)


defvjp(softplus_unstable_rule, lambda ans, x: lambda g: g * (1 - anp.exp(-ans)))
x = np.array([-30.0])
unstable = grad(lambda x: anp.sum(softplus_unstable_rule(x)))(x)
stable = grad(lambda x: anp.sum(softplus(x)))(x)
sigmoid = 1 / (1 + math.exp(30.0))  # the logistic function at -30, in Python floats
relative_error = abs(unstable[0] - stable[0]) / stable[0]
assert relative_error > 1e-4
try:
    check_grads(softplus_unstable_rule, modes=("rev",), order=1)(x)
    verdict = "passes"
except GradientCheckError:
    verdict = "fails"
eps = np.finfo(np.float64).eps
print(collapsible(
    "Since $e^{-\\text{softplus}(x)} = 1 - \\sigma(x)$, the rule `g * (1 - anp.exp(-ans))` is "
    "mathematically right. What is wrong with it?",
    text(
        "At $x$ = {x:g}, $\\sigma(x) \\approx$ {sigma:.6e}, but `1 - exp(-ans)` subtracts from "
        "$1$ a number within $\\sigma(x)$ of it: the rounding error of `exp(-ans)`, up to "
        "$\\epsilon$, becomes a relative error of up to $\\epsilon / \\sigma(x)$. It returns "
        "{unstable:.6e}, a relative error of {error:.0e}. `check_grads` {verdict} here, because "
        "its tolerance `atol` = {atol:g} is far larger than the whole value. Check rules in the "
        "tails with a relative comparison, and prefer forms like `exp(x - ans)` that never "
        "subtract nearly equal numbers.",
        x=given(x[0]),
        sigma=checked(stable[0], against=sigmoid, rtol=1e-14),
        unstable=checked(unstable[0], against=sigmoid, rtol=eps / sigmoid),
        error=checked(relative_error, against=0.0, atol=eps / sigmoid),
        verdict=checked(verdict, against="passes" if abs(stable[0]) < ATOL else "fails"),
        atol=given(ATOL),
    ),
))
