"""Self-test for "Writing VJP rules": every answer is computed and checked here before it is shown."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.extend import defvjp, primitive, unbroadcast_f
from ad_core.test_util import check_grads
from bookkit import central_differences, checked, collapsible, given, text

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
print(collapsible(
    text(
        "Write the VJP rule of `x / y` for the divisor `y`, when `y` has shape {y_shape} and `x` "
        "shape {x_shape}.",
        y_shape=given(divisor.shape),
        x_shape=given(numerator.shape),
    ),
    text(
        "$\\partial (x/y)/\\partial y = -x/y^2$, and `y` was broadcast over the rows, so the rule "
        "is `unbroadcast_f(y, lambda g: -g * x / y**2)`. With random `x` and `y` equal to {y}, the "
        "gradient of `sum(x / y)` is {gradient}, shape {shape}, and `check_grads` passed against "
        "central differences.",
        y=given(divisor),
        gradient=checked(
            divisor_gradient,
            against=central_differences(lambda y: np.sum(numerator / y), divisor),
            rtol=1e-7,
        ),
        shape=checked(divisor_gradient.shape, against=np.shape(divisor)),
    ),
))

# 2. A size-1 axis: the cotangent keeps it.
bias_row = rng.standard_normal((1, 3))
batch = rng.standard_normal((2, 3))
bias_row_gradient = grad(lambda b: anp.sum(batch * b))(bias_row)
print(collapsible(
    text(
        "`b` of shape {b_shape} multiplies `x` of shape {x_shape}. What shape does the rule for "
        "`b` return, and which axis does it sum?",
        b_shape=given(bias_row.shape),
        x_shape=given(batch.shape),
    ),
    text(
        "It returns shape {shape}: `unbroadcast` sums `axis=0` with `keepdims=True`, because the "
        "target already had that axis, with size {size}. Here $\\bar b$ = {gradient} = "
        "`x.sum(axis=0, keepdims=True)`.",
        size=given(bias_row.shape[0]),
        shape=checked(bias_row_gradient.shape, against=np.shape(bias_row)),
        gradient=checked(
            bias_row_gradient,
            against=central_differences(lambda b: np.sum(batch * b), bias_row),
            rtol=1e-7,
            atol=1e-9,
        ),
    ),
))

# 3. The VJP of a matrix-vector product is a multiplication by the transpose.
matrix = rng.standard_normal((3, 4))
vector = rng.standard_normal(4)
cotangent = rng.standard_normal(3)
vjp, _ = make_vjp(lambda v: anp.dot(matrix, v))(vector)
print(collapsible(
    text(
        "`f(v) = A @ v` with `A` of shape {shape} is linear. What is its VJP, and what shape does "
        "it return?",
        shape=given(matrix.shape),
    ),
    text(
        "$\\bar v = A^\\top \\bar y$: the cotangent `g` of shape {g_shape} goes to shape "
        "{v_shape}. The engine's rule for `dot` agrees with `A.T @ g` on a random `g`: {value}.",
        g_shape=given(cotangent.shape),
        v_shape=checked(vjp(cotangent).shape, against=np.shape(vector)),
        value=checked(vjp(cotangent), against=matrix.T @ cotangent, rtol=1e-14),
    ),
))


# 4. None versus an explicit zero rule.
@primitive
def step_up(x, threshold):
    return np.where(x > threshold, x, 0.0)


defvjp(step_up, lambda ans, x, threshold: lambda g: g * (x > threshold), None)
point, threshold = np.array([0.5, 2.0, 3.0]), 1.0
threshold_gradient = grad(lambda t: anp.sum(step_up(point, t)))(threshold)
check_grads(lambda x: step_up(x, threshold), modes=("rev",), order=1)(point)
# Crossing the element 2.0: the sum drops by that element, however small the move across it.
crossing = float(np.sum(step_up(point, 2.0 - 1e-9)) - np.sum(step_up(point, 2.0 + 1e-9)))
print(collapsible(
    "`step_up(x, t)` keeps `x` where `x > t`. Its rule for `t` is `None`. What does "
    "`grad` with respect to `t` return, and is that the true derivative?",
    text(
        "It returns {value} with shape {shape}: `defvjp` turned `None` into a rule that returns "
        "zeros of the argument's vector space. It is the true derivative wherever no `x` equals "
        "`t`; moving `t` a little changes nothing until it crosses an element, where the function "
        "jumps (by {jump} at the element {element}) and has no derivative. The rule for `x` "
        "passed `check_grads` at `x` equal to {x}, `t` equal to {t}.",
        value=checked(threshold_gradient, against=central_differences(
            lambda t: float(np.sum(step_up(point, t))), np.float64(threshold))),
        shape=checked(list(np.shape(threshold_gradient)), against=list(np.shape(threshold)),
                      shown_as=lambda v: "`()`" if not v else str(tuple(v))),
        jump=checked(crossing, against=point[1]),
        element=given(point[1]),
        x=given(point),
        t=given(threshold),
    ),
))
