"""A second primitive: softplus, elementwise, stable for large |x|, its rule reusing the output."""

import warnings

import numpy as np

import ad_core.numpy as anp
from ad_core import elementwise_grad
from ad_core.extend import defjvp, defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import md_table


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
assert np.all(np.isfinite(stable_values)) and np.all(np.isfinite(stable_slopes))
assert np.isinf(naive_values[-1]) and np.isnan(naive_slopes[-1])
np.testing.assert_allclose(stable_values[1:5], np.log1p(np.exp(x[1:5])), rtol=1e-15)
with np.errstate(over="ignore"):
    # The logistic function, each tail in the form that cannot overflow.
    decay = np.exp(-np.abs(x))
    reference = np.where(x >= 0, 1 / (1 + decay), decay / (1 + decay))
np.testing.assert_allclose(stable_slopes, reference, rtol=1e-14)
check_grads(softplus, modes=("fwd", "rev"), order=2)(np.array([-3.0, -0.5, 0.7, 4.0]))

print(md_table(
    ["$x$", "naive `log(1 + exp(x))`", "its slope", "`softplus(x)`", "its slope (sigmoid)"],
    [[f"{a:g}", f"`{b:.6g}`", f"`{c:.6g}`", f"`{d:.6g}`", f"`{e:.6g}`"]
     for a, b, c, d, e in zip(x, naive_values, naive_slopes, stable_values, stable_slopes,
                              strict=True)],
))
print(
    "\n`check_grads(softplus, modes=(\"fwd\", \"rev\"), order=2)` passed on "
    "`[-3.0, -0.5, 0.7, 4.0]`. The naive slope at $x = 1000$ is `nan`: the chain rule "
    "multiplies the cotangent `1 / (1 + exp(1000))`, which is `0`, by `exp(1000)`, which is "
    "`inf`. At $x = -30$ the naive value has lost digits: `1 + exp(-30)` rounds away most digits of "
    "`exp(-30)` before `log` sees it."
)
with np.errstate(over="ignore", invalid="ignore"):
    assert np.isnan(np.exp(1000.0) * (1 / (1 + np.exp(1000.0))))
