"""The (1, 3) bias: its size-1 axis is summed with keepdims; dropping keepdims breaks the shape."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive
from ad_core.recorder import record
from bookkit import central_differences, checked, given, load_snippet_module, observed, text
from bookkit.formatting import _fmt_shape as fmt_shape

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

matrix, row_bias, column_bias = helpers.MATRIX, helpers.ROW_BIAS, helpers.COLUMN_BIAS

# --8<-- [start:record]
with record() as recording:
    grad_row = grad(lambda b: anp.sum(matrix + b))(row_bias)
# --8<-- [end:record]

stages = helpers.unbroadcast_events(recording.events)
# Same ndim (2 and 2): no leading sum. Target axis 0 has size 1 and the cotangent has 2 there.
assert [event.detail["stage"] for event in stages] == ["enter", "sum_keepdims", "return"]

print(
    text(
        "A bias of shape {row} has as many dimensions as the {matrix} matrix ({ndim} each), so the "
        "`while` loop has nothing to remove. Its first axis has size one and was stretched to "
        "{rows}: `unbroadcast` sums that axis and keeps it.",
        row=helpers.given_shape(row_bias.shape),
        matrix=helpers.given_shape(matrix.shape),
        ndim=checked(row_bias.ndim, against=len(matrix.shape)),
        rows=given(matrix.shape[0]),
    )
)
print()
print(
    helpers.backward_snapshot_table(
        recording.events,
        "add",
        "b",
        row_bias,
        forward_value=matrix + np.vstack([row_bias, row_bias]),
        cotangent=np.ones(matrix.shape),
        entering=np.ones(matrix.shape),
        gradient=central_differences(lambda b: np.sum(matrix + b), row_bias),
    )
)
print()


# --8<-- [start:no_keepdims]
@primitive
def add_dropping_keepdims(x, b):
    return x + b


# Tempting: "b was copied along axis 0, so sum axis 0",
# but without keepdims.
defvjp(add_dropping_keepdims, None, lambda ans, x, b: lambda g: anp.sum(g, axis=0))
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
column_gradient_dropped = np.sum(np.ones((2, 3)), axis=1)  # shape (2,), not (2, 1)
learning_rate = 0.1
column_after_step = column_bias - learning_rate * column_gradient_dropped  # NumPy broadcasts again

print(
    text(
        "Without `keepdims`, summing the first axis of the {matrix} cotangent gives shape {dropped}: "
        "the right numbers in the wrong vector space. The engine's `backward_pass` refuses it:",
        matrix=helpers.given_shape(matrix.shape),
        dropped=helpers.shape_cell(dropped_shape, row_bias.shape[1:]),
    )
)
print()
print(observed(helpers.wrap_message(f"ValueError: {engine_message}")))
print()
print('!!! warning "A dropped axis does not always fail loudly"')
print()
print(
    text(
        "    For the column bias of shape {column}, a keepdims-free sum over its second axis gives "
        "shape {dropped}. A hand-written update `b - lr * g` with `lr` $=$ {lr} then broadcasts "
        "{column} against {dropped} and returns shape {after}: no error, and a parameter that has "
        "silently changed shape. Check the shape before the values.",
        column=helpers.given_shape(column_bias.shape),
        dropped=helpers.shape_cell(column_gradient_dropped.shape, column_bias.shape[:1]),
        lr=given(learning_rate),
        # NumPy's broadcasting of (2, 1) against (2,): the (2,) becomes a row, stretched to 2 rows.
        after=helpers.shape_cell(
            column_after_step.shape, (column_bias.shape[0], column_gradient_dropped.shape[0])
        ),
    )
)
