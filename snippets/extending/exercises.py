"""Self-test for chapter 11: every answer is computed and checked here before it is shown."""

import contextlib
import io

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, hessian
from ad_core.extend import defvjp, primitive
from ad_core.test_util import ATOL, GradientCheckError, check_grads
from bookkit import assert_shape_then_close, collapsible, fmt_array, latex_matrix, load_snippet_module

with contextlib.redirect_stdout(io.StringIO()):  # the primitives' own tables belong to their blocks
    logsumexp = load_snippet_module("snippets/extending/logsumexp_primitive.py").logsumexp
    softplus = load_snippet_module("snippets/extending/softplus_primitive.py").softplus

rng = np.random.default_rng(1111)

# 1. Shifts.
z, shift = rng.standard_normal(4), 1000.0
np.testing.assert_allclose(logsumexp(z + shift), logsumexp(z) + shift, rtol=1e-15)
assert_shape_then_close(grad(logsumexp)(z + shift), grad(logsumexp)(z), rtol=1e-12)
print(collapsible(
    "Why may `logsumexp` subtract the maximum before calling `exp`?",
    "Because $\\log\\sum_j e^{z_j + c} = c + \\log\\sum_j e^{z_j}$ for any constant $c$. "
    f"With a random `z` and $c = {shift:g}$, `logsumexp(z + c) - logsumexp(z)` is "
    f"`{logsumexp(z + shift) - logsumexp(z):.10f}`, and the gradient (softmax) does not change: "
    f"`{fmt_array(grad(logsumexp)(z))}`.",
))

# 2. The Hessian of logsumexp.
probabilities = grad(logsumexp)(z)
H = hessian(logsumexp)(z)
assert_shape_then_close(H, np.diag(probabilities) - np.outer(probabilities, probabilities), rtol=1e-10)
assert abs(H.sum(axis=1)).max() < 1e-12
print(collapsible(
    "What is the Hessian of `logsumexp`, and why does `check_grads(order=2)` pass?",
    "$H = \\operatorname{diag}(p) - p p^\\top$ with $p = \\operatorname{softmax}(z)$. The VJP "
    "closure computes `exp(z - ans)` with `anp`, so the engine differentiates it again. For "
    f"the same `z`:\n\n$$\nH = {latex_matrix(H)}\n$$\n\nEach row sums to zero "
    f"(largest row sum {abs(H.sum(axis=1)).max():.0e}): adding a constant to every logit does "
    "not change the gradient.",
))


# 3. A rule that uses the output in an unstable way.
@primitive
def softplus_unstable_rule(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)


defvjp(softplus_unstable_rule, lambda ans, x: lambda g: g * (1 - anp.exp(-ans)))
x = np.array([-30.0])
unstable = grad(lambda x: anp.sum(softplus_unstable_rule(x)))(x)
stable = grad(lambda x: anp.sum(softplus(x)))(x)
relative_error = abs(unstable[0] - stable[0]) / stable[0]
assert relative_error > 1e-4
agreeing_digits = int(-np.log10(stable[0]))  # 1 and exp(-ans) differ only after this digit
try:
    check_grads(softplus_unstable_rule, modes=("rev",), order=1)(x)
    verdict = "passes"
except GradientCheckError:
    verdict = "fails"
print(collapsible(
    "Since $e^{-\\text{softplus}(x)} = 1 - \\sigma(x)$, the rule `g * (1 - anp.exp(-ans))` is "
    "mathematically right. What is wrong with it?",
    f"At $x = {x[0]:g}$, $\\sigma(x) \\approx$ `{stable[0]:.6e}`, but `1 - exp(-ans)` subtracts "
    f"two numbers that agree in their first {agreeing_digits} digits and returns "
    f"`{unstable[0]:.6e}`: a relative error of {relative_error:.0e}. `check_grads` {verdict} "
    f"here, because its tolerance `atol={ATOL:g}` is "
    "far larger than the whole value. Check rules in the tails with a relative comparison, "
    "and prefer forms like `exp(x - ans)` that never subtract nearly equal numbers.",
))
