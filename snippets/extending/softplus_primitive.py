"""A second primitive: softplus, elementwise, stable for large |x|, its rule reusing the output."""

import warnings

import numpy as np

import ad_core.numpy as anp
from ad_core import elementwise_grad
from ad_core.extend import defjvp, defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import checked, given, md_table, text


# --8<-- [start:primitive]
@primitive
def softplus(x):
    """log(1 + exp(x)), written so that exp() only ever sees a non-positive number."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)


def sigmoid_from(ans, x):
    # sigmoid(x) = exp(x - softplus(x)): the same trick as log-sum-exp, exp() of a number <= 0.
    return anp.exp(x - ans)


defvjp(softplus, lambda ans, x: lambda g: g * sigmoid_from(ans, x))
defjvp(softplus, lambda g, ans, x: g * sigmoid_from(ans, x))
# --8<-- [end:primitive]


def naive_softplus(x):
    return anp.log(1 + anp.exp(x))


x = np.array([-1000.0, -30.0, 0.0, 2.0, 30.0, 1000.0])
with warnings.catch_warnings(), np.errstate(over="ignore"):
    warnings.simplefilter("ignore")  # the overflow is the point of the naive column
    naive_values = naive_softplus(x)
    naive_slopes = elementwise_grad(naive_softplus)(x)
stable_values = softplus(x)
stable_slopes = elementwise_grad(softplus)(x)
with np.errstate(over="ignore"):
    # The logistic function, each tail in the form that cannot overflow.
    decay = np.exp(-np.abs(x))
    sigmoid = np.where(x >= 0, 1 / (1 + decay), decay / (1 + decay))
    overflows = np.isinf(np.exp(x))
# What the naive formula must give: the true value (NumPy's logaddexp), up to the rounding of
# 1 + exp(x) (half the spacing above 1, relative to the value), and inf where exp overflows;
# its slope is the sigmoid, except nan where 0 * inf meets in exp's rule.
true_values = np.logaddexp(0.0, x)
naive_reference = np.where(overflows, np.inf, true_values)
with np.errstate(divide="ignore"):  # where softplus underflows to 0, both sides are exactly 0
    rounding = np.finfo(np.float64).eps / 2 / true_values
    naive_tolerance = np.where(true_values > 0, np.maximum(1e-15, rounding), 1e-15)
naive_slope_reference = np.where(overflows, np.nan, sigmoid)
points = np.array([-3.0, -0.5, 0.7, 4.0])
check_grads(softplus, modes=("fwd", "rev"), order=2)(points)


def short(value):
    return f"`{value:.6g}`"


print(md_table(
    ["$x$", "naive `log(1 + exp(x))`", "its slope", "`softplus(x)`", "its slope (sigmoid)"],
    [[given(a, shown_as=lambda v: f"{v:g}"),
      checked(b, against=b_ref, rtol=b_tol, shown_as=short),
      checked(c, against=c_ref, rtol=1e-14, shown_as=short),
      # NumPy's own stable log(exp(0) + exp(x)), written independently of this primitive.
      checked(d, against=true, rtol=1e-15, shown_as=short),
      checked(e, against=e_ref, rtol=1e-14, shown_as=short)]
     for a, b, b_ref, b_tol, c, c_ref, d, true, e, e_ref in zip(
         x, naive_values, naive_reference, naive_tolerance, naive_slopes, naive_slope_reference,
         stable_values, true_values, stable_slopes, sigmoid, strict=True)],
))
tail = int(np.flatnonzero(x == -30.0)[0])
lost = abs(naive_values[tail] - stable_values[tail]) / stable_values[tail]
with np.errstate(over="ignore", invalid="ignore"):
    exp_big = np.exp(x[-1])
    cotangent = 1 / (1 + exp_big)
print(text(
    "\n`check_grads(softplus, modes=(\"fwd\", \"rev\"), order=2)` passed on {points}. The "
    "naive slope at $x$ = {big:g} is {nan}: the chain rule multiplies the cotangent "
    "`1 / (1 + exp(x))`, which is {zero}, by `exp(x)`, which is {inf}. At $x$ = {small:g} the "
    "naive value has lost digits: `1 + exp(x)` rounds `exp(x)` to a multiple of the spacing of "
    "floats near $1$ before `log` sees it, a relative error of {lost:.1e}.",
    points=given(points, shown_as=lambda p: "`[" + ", ".join(f"{v:g}" for v in p) + "]`"),
    big=given(x[-1]), small=given(x[tail]),
    nan=checked(bool(np.isnan(naive_slopes[-1])), against=bool(overflows[-1]), shown_as=lambda _: "`nan`"),
    zero=checked(cotangent, against=0.0, shown_as=lambda v: f"`{v:g}`"),
    inf=checked(exp_big, against=np.inf, shown_as=lambda v: f"`{v}`"),
    # 1 + exp(x) is off by at most half the spacing above 1: eps / 2, relative to softplus(x).
    lost=checked(lost, against=0.0, atol=np.finfo(np.float64).eps / 2 / stable_values[tail]),
))
assert lost > 1e-4
