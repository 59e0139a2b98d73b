"""State snapshot, vector bias: unbroadcast takes the (2, 3) cotangent back to (3,)."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from ad_core.numpy.wrapper import metadata
from bookkit import assert_shape_then_close, fmt_shape, load_snippet_module

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

matrix, b = helpers.MATRIX, helpers.VECTOR_BIAS

# --8<-- [start:record]
with record() as recording:
    grad_b = grad(lambda b: anp.sum(matrix + b))(b)
# --8<-- [end:record]

stages = helpers.unbroadcast_events(recording.events)
names = [event.detail["stage"] for event in stages]
# (2, 3) -> (3,): one leading sum over axis 0; size 3 is not 1, so no keepdims sum.
assert names == ["enter", "sum_leading", "return"], names
assert stages[1].detail["axis"] == 0
assert stages[0].shape == matrix.shape and stages[-1].shape == b.shape
assert_shape_then_close(stages[-1].value, grad_b)
assert_shape_then_close(grad_b, np.full(b.shape, float(matrix.shape[0])))

print(helpers.backward_snapshot_table(recording.events, "add", "b", metadata(b)))
print()
print(
    f"The `for` loop visits axis 0 of the target shape `{fmt_shape(b.shape)}`; its size is "
    f"{b.shape[0]}, not 1, so nothing more is summed. Summing axis 1 instead would have mixed "
    f"`b[0]`, `b[1]` and `b[2]` together and returned shape `{fmt_shape(matrix.sum(1).shape)}`."
)
