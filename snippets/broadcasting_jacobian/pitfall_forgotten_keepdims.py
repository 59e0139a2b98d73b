"""Pitfall 1: a (1, n) parameter whose hand-written gradient forgot keepdims."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.extend import defvjp, primitive
from bookkit import assert_shape_then_close, checked, given, md_table, observed, text

m, n = 4, 3
rng = np.random.default_rng(3)
x = rng.normal(size=(m, n))
bias_row = rng.normal(size=(1, n))  # a (1, n) row, like the batch-norm gain and bias of Part III's model
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
    shape_first_check = None
except AssertionError as error:
    shape_first_check = error
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
    custom_rule_outcome = None
except ValueError as error:
    custom_rule_outcome = error
# --8<-- [end:custom_rule]

assert isinstance(custom_rule_outcome, ValueError)

assert values_only_check, "np.allclose compares after broadcasting, so it cannot see the shape bug"
assert isinstance(shape_first_check, AssertionError)

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
    in_place_result = None
except ValueError as error:
    in_place_result = error
# --8<-- [end:column]
assert updated_out_of_place.shape == (m, m)
assert isinstance(in_place_result, ValueError)


def raised(outcome, expected: type) -> object:
    """The exception a run raised, named in the table; its message is shown verbatim below it."""
    return text(
        "raises {kind}",
        kind=checked(type(outcome).__name__, against=expected.__name__, shown_as=lambda v: f"`{v}`"),
    )


def shapes(first, second, joiner="vs"):
    return text("{a} " + joiner + " {b}", a=first, b=second)


# What np.allclose does, spelled out: broadcast both to a common shape, then compare entries.
common = np.broadcast_shapes(hand_gradient_forgot.shape, engine_gradient.shape)
entrywise = bool(
    np.all(
        np.abs(np.broadcast_to(hand_gradient_forgot, common) - np.broadcast_to(engine_gradient, common))
        <= 1e-8 + 1e-5 * np.abs(np.broadcast_to(engine_gradient, common))
    )
)
forgot_shape = checked(hand_gradient_forgot.shape, against=bias_row.shape[1:])
row_shape = checked(engine_gradient.shape, against=bias_row.shape)
column_forgot_shape = checked(column_gradient_forgot.shape, against=bias_column.shape[:1])
column_shape = given(bias_column.shape)
rows = [
    [
        "`(1, n)` bias, `np.allclose(hand, engine)`",
        shapes(forgot_shape, row_shape),
        text(
            "{flag}: the comparison broadcasts and misses the bug",
            flag=checked(values_only_check, against=entrywise, shown_as=lambda v: f"`{v}`"),
        ),
    ],
    [
        "`(1, n)` bias, `assert_shape_then_close(hand, engine)`",
        shapes(forgot_shape, row_shape),
        raised(shape_first_check, AssertionError),
    ],
    [
        "custom rule with `g.sum(axis=0)`, run by the engine's `grad`",
        shapes(forgot_shape, given(bias_row.shape)),
        raised(custom_rule_outcome, ValueError),
    ],
    [
        "`(m, 1)` bias, `r = r - lr * g`",
        shapes(column_shape, column_forgot_shape, "minus"),
        text(
            "silently becomes {shape}",
            shape=checked(updated_out_of_place.shape, against=np.broadcast_shapes(bias_column.shape, (m,))),
        ),
    ],
    [
        "`(m, 1)` bias, `r -= lr * g`",
        shapes(column_shape, column_forgot_shape, "minus"),
        raised(in_place_result, ValueError),
    ],
]
print(md_table(["what you run", "shapes", "what happens"], rows))
print()
print("The three messages, in the table's order:")
print()
print(
    observed(
        "\n".join(
            f"{type(error).__name__}: {error}"
            for error in (shape_first_check, custom_rule_outcome, in_place_result)
        )
    )
)
