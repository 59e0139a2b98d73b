"""Pitfall 1: a (1, n) parameter whose hand-written gradient forgot keepdims."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.extend import defvjp, primitive
from bookkit import assert_shape_then_close, fmt_shape, md_table

m, n = 4, 3
rng = np.random.default_rng(3)
x = rng.normal(size=(m, n))
bias_row = rng.normal(size=(1, n))  # registered as (1, n), as many frameworks store biases
upstream = rng.normal(size=(m, n))

# --8<-- [start:forgot]
vjp_function, _ = make_vjp(lambda b: x + b)(bias_row)
engine_gradient = vjp_function(upstream)  # unbroadcast keeps the size-1 axis

hand_gradient_forgot = upstream.sum(axis=0)  # shape (n,): the size-1 axis is gone
hand_gradient_right = upstream.sum(axis=0, keepdims=True)  # shape (1, n)
# --8<-- [end:forgot]

assert engine_gradient.shape == bias_row.shape
assert_shape_then_close(hand_gradient_right, engine_gradient)

# --8<-- [start:checks]
values_only_check = np.allclose(hand_gradient_forgot, engine_gradient)  # True
try:
    assert_shape_then_close(hand_gradient_forgot, engine_gradient)
    shape_first_check = "passed"
except AssertionError as error:
    shape_first_check = f"AssertionError: {error}"
# --8<-- [end:checks]


# --8<-- [start:custom_rule]
@primitive
def add_row_bias(x, b):
    return x + b


defvjp(
    add_row_bias,
    lambda ans, x, b: lambda g: g,
    lambda ans, x, b: lambda g: g.sum(axis=0),  # keepdims forgotten
)
try:
    grad(lambda b: anp.sum(add_row_bias(x, b) ** 2))(bias_row)
    custom_rule_outcome = "no error"
except ValueError as error:
    custom_rule_outcome = f"ValueError: {error}"
# --8<-- [end:custom_rule]
assert custom_rule_outcome.startswith("ValueError")

assert values_only_check, "np.allclose compares after broadcasting, so it cannot see the shape bug"
assert shape_first_check.startswith("AssertionError")

# The same slip on a column parameter (m, 1) is no longer harmless.
bias_column = rng.normal(size=(m, 1))
column_gradient_forgot = upstream.sum(axis=1)  # (m,) instead of (m, 1)
learning_rate = 0.1
# --8<-- [start:column]
# (m, 1) - (m,) broadcasts to (m, m)
updated_out_of_place = bias_column - learning_rate * column_gradient_forgot
try:
    in_place = bias_column.copy()
    in_place -= learning_rate * column_gradient_forgot
    in_place_result = f"shape {fmt_shape(in_place.shape)}"
except ValueError as error:
    in_place_result = f"ValueError: {error}"
# --8<-- [end:column]
assert updated_out_of_place.shape == (m, m)
assert in_place_result.startswith("ValueError")

rows = [
    [
        "`(1, n)` bias, `np.allclose(hand, engine)`",
        f"`{fmt_shape(hand_gradient_forgot.shape)}` vs `{fmt_shape(engine_gradient.shape)}`",
        f"`{values_only_check}`: the comparison broadcasts and misses the bug",
    ],
    [
        "`(1, n)` bias, `assert_shape_then_close(hand, engine)`",
        f"`{fmt_shape(hand_gradient_forgot.shape)}` vs `{fmt_shape(engine_gradient.shape)}`",
        shape_first_check.replace("\n", " "),
    ],
    [
        "custom rule with `g.sum(axis=0)`, run by the engine's `grad`",
        f"`{fmt_shape(hand_gradient_forgot.shape)}` vs `{fmt_shape(bias_row.shape)}`",
        custom_rule_outcome,
    ],
    [
        "`(m, 1)` bias, `r = r - lr * g`",
        f"`{fmt_shape(bias_column.shape)}` minus `{fmt_shape(column_gradient_forgot.shape)}`",
        f"silently becomes `{fmt_shape(updated_out_of_place.shape)}`",
    ],
    [
        "`(m, 1)` bias, `r -= lr * g`",
        f"`{fmt_shape(bias_column.shape)}` minus `{fmt_shape(column_gradient_forgot.shape)}`",
        in_place_result,
    ],
]
print(md_table(["what you run", "shapes", "what happens"], rows))
