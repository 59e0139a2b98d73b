"""State snapshot, vector bias: unbroadcast takes the (2, 3) cotangent back to (3,)."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record
from bookkit import central_differences, given, load_snippet_module, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

matrix, b = helpers.MATRIX, helpers.VECTOR_BIAS

# --8<-- [start:record]
with record() as recording:
    grad_b = grad(lambda b: anp.sum(matrix + b))(b)
# --8<-- [end:record]

stages = helpers.unbroadcast_events(recording.events)
# (2, 3) -> (3,): one leading sum over axis 0; size 3 is not 1, so no keepdims sum.
assert [event.detail["stage"] for event in stages] == ["enter", "sum_leading", "return"]
print(helpers.backward_snapshot_table(
    recording.events, "add", "b", b,
    forward_value=matrix + np.stack([b, b]),
    cotangent=np.ones(matrix.shape),
    entering=np.ones(matrix.shape),
    gradient=central_differences(lambda b: np.sum(matrix + b), b),
))
wrong_axis_shape = np.ones(matrix.shape).sum(axis=1).shape
print()
print(text(
    "The `for` loop visits the only axis of the target shape {shape}; its size is {size}, not "
    "one, so nothing more is summed. Summing the last axis of the cotangent instead would have "
    "mixed the entries of `b` together and returned shape {wrong}.",
    shape=helpers.given_shape(b.shape),
    size=given(b.shape[0]),
    wrong=helpers.shape_cell(wrong_axis_shape, (matrix.shape[0],)),  # one sum per row
))
