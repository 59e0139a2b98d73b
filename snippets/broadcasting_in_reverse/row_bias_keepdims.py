"""The (1, 3) bias: its size-1 axis is summed with keepdims; dropping keepdims breaks the shape."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive
from ad_core.inspect import record
from ad_core.numpy.wrapper import metadata
from bookkit import assert_shape_then_close, fmt_shape, load_snippet_module

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

matrix, row_bias, column_bias = helpers.MATRIX, helpers.ROW_BIAS, helpers.COLUMN_BIAS

# --8<-- [start:record]
with record() as recording:
    grad_row = grad(lambda b: anp.sum(matrix + b))(row_bias)
# --8<-- [end:record]

stages = helpers.unbroadcast_events(recording.events)
names = [event.detail["stage"] for event in stages]
# Same ndim (2 and 2): no leading sum. Target axis 0 has size 1 and the cotangent has 2 there.
assert names == ["enter", "sum_keepdims", "return"], names
assert stages[1].detail["axis"] == 0 and stages[1].shape == row_bias.shape
assert_shape_then_close(grad_row, np.full(row_bias.shape, float(matrix.shape[0])))

print(
    f"A bias of shape `{fmt_shape(row_bias.shape)}` has as many dimensions as the "
    f"`{fmt_shape(matrix.shape)}` matrix ({row_bias.ndim} each), so the `while` loop has nothing "
    f"to remove. Its axis 0 has size 1 and was stretched to {matrix.shape[0]}: `unbroadcast` "
    "sums that axis and keeps it."
)
print()
print(helpers.backward_snapshot_table(recording.events, "add", "b", metadata(row_bias)))
print()


# --8<-- [start:no_keepdims]
@primitive
def add_dropping_keepdims(x, b):
    return x + b


# Tempting: "b was copied along axis 0, so sum axis 0",
# but without keepdims.
defvjp(add_dropping_keepdims, None,
       lambda ans, x, b: lambda g: anp.sum(g, axis=0))
# --8<-- [end:no_keepdims]

try:
    grad(lambda b: anp.sum(add_dropping_keepdims(matrix, b)))(row_bias)
except ValueError as error:
    engine_message = str(error)
else:
    raise AssertionError("the engine accepted a (3,) cotangent for a (1, 3) input")
dropped_shape = np.sum(np.ones(matrix.shape), axis=0).shape
assert fmt_shape(dropped_shape) in engine_message and fmt_shape(row_bias.shape) in engine_message

# What a caller would do with an unchecked, keepdims-free gradient of the column bias.
column_gradient_dropped = np.sum(np.ones((2, 3)), axis=1)          # shape (2,), not (2, 1)
column_after_step = column_bias - 0.1 * column_gradient_dropped     # NumPy broadcasts again
assert column_after_step.shape == (2, 2) != column_bias.shape

print(
    f"Without `keepdims`, summing axis 0 of the `{fmt_shape(matrix.shape)}` cotangent gives "
    f"shape `{fmt_shape(dropped_shape)}`: the right numbers in the wrong vector space. The "
    "engine's `backward_pass` refuses it:"
)
print()
print(helpers.text_block(f"ValueError: {engine_message}"))
print()
print('!!! warning "A dropped axis does not always fail loudly"')
print()
print(
    f"    For the column bias of shape `{fmt_shape(column_bias.shape)}`, a keepdims-free sum "
    f"over axis 1 gives shape `{fmt_shape(column_gradient_dropped.shape)}`. A hand-written update "
    f"`b - 0.1 * g` then broadcasts `{fmt_shape(column_bias.shape)}` against "
    f"`{fmt_shape(column_gradient_dropped.shape)}` and returns shape "
    f"`{fmt_shape(column_after_step.shape)}`: no error, and a parameter that has silently "
    "changed shape. Check the shape before the values."
)
