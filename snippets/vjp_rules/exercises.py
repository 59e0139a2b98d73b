"""Self-test for chapter 6: every answer is computed and checked here before it is shown."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.extend import defvjp, primitive, unbroadcast_f
from ad_core.test_util import check_grads
from bookkit import assert_shape_then_close, collapsible, fmt_array

rng = np.random.default_rng(66)


# 1. The rule of a division for the divisor, with a broadcast divisor.
@primitive
def my_div(x, y):
    return x / y


defvjp(
    my_div,
    lambda ans, x, y: unbroadcast_f(x, lambda g: g / y),
    lambda ans, x, y: unbroadcast_f(y, lambda g: -g * x / y**2),
)
numerator = rng.standard_normal((2, 3))
divisor = rng.uniform(1.0, 2.0, size=3)
check_grads(lambda y: my_div(numerator, y), modes=("rev",), order=1)(divisor)
divisor_gradient = grad(lambda y: anp.sum(my_div(numerator, y)))(divisor)
assert_shape_then_close(divisor_gradient, -(numerator / divisor**2).sum(axis=0))
print(collapsible(
    "Write the VJP rule of `x / y` for the divisor `y`, when `y` has shape (3,) and `x` "
    "shape (2, 3).",
    "$\\partial (x/y)/\\partial y = -x/y^2$, and `y` was broadcast over the rows, so the rule "
    "is `unbroadcast_f(y, lambda g: -g * x / y**2)`. With random `x` and "
    f"`y = {fmt_array(divisor)}` the gradient of `sum(x / y)` is "
    f"`{fmt_array(divisor_gradient)}`, shape `{divisor_gradient.shape}`, and `check_grads` "
    "passed against central differences.",
))

# 2. A size-1 axis: the cotangent keeps it.
bias_row = rng.standard_normal((1, 3))
batch = rng.standard_normal((2, 3))
bias_row_gradient = grad(lambda b: anp.sum(batch * b))(bias_row)
assert_shape_then_close(bias_row_gradient, batch.sum(axis=0, keepdims=True))
print(collapsible(
    "`b` of shape (1, 3) multiplies `x` of shape (2, 3). What shape does the rule for `b` "
    "return, and which axis does it sum?",
    f"It returns shape `{bias_row_gradient.shape}`: `unbroadcast` sums axis 0 with "
    "`keepdims=True`, because the target already had that axis with size 1. Here "
    f"$\\bar b$ = `{fmt_array(bias_row_gradient)}` = `x.sum(axis=0, keepdims=True)`.",
))

# 3. The VJP of a matrix-vector product is a multiplication by the transpose.
matrix = rng.standard_normal((3, 4))
vector = rng.standard_normal(4)
cotangent = rng.standard_normal(3)
vjp, _ = make_vjp(lambda v: anp.dot(matrix, v))(vector)
assert_shape_then_close(vjp(cotangent), matrix.T @ cotangent)
print(collapsible(
    "`f(v) = A @ v` with `A` of shape (3, 4) is linear. What is its VJP, and what shape "
    "does it return?",
    "$\\bar v = A^\\top \\bar y$: the cotangent `g` of shape `(3,)` goes to shape "
    f"`{vjp(cotangent).shape}`. The engine's rule for `dot` agrees with `A.T @ g` on a "
    f"random `g`: `{fmt_array(vjp(cotangent))}`.",
))


# 4. None versus an explicit zero rule.
@primitive
def step_up(x, threshold):
    return np.where(x > threshold, x, 0.0)


defvjp(step_up, lambda ans, x, threshold: lambda g: g * (x > threshold), None)
point, threshold = np.array([0.5, 2.0, 3.0]), 1.0
threshold_gradient = grad(lambda t: anp.sum(step_up(point, t)))(threshold)
assert threshold_gradient == 0.0 and np.shape(threshold_gradient) == ()
check_grads(lambda x: step_up(x, threshold), modes=("rev",), order=1)(point)
print(collapsible(
    "`step_up(x, t)` keeps `x` where `x > t`. Its rule for `t` is `None`. What does "
    "`grad` with respect to `t` return, and is that the true derivative?",
    f"It returns `{fmt_array(threshold_gradient)}` with shape `{np.shape(threshold_gradient)}`: "
    "`defvjp` turned `None` into a rule that returns zeros of the argument's vector space. "
    "It is the true derivative wherever no `x` equals `t`; moving `t` a little changes "
    "nothing until it crosses an element, where the function jumps and has no derivative. "
    "The rule for `x` passed `check_grads` at that point.",
))
