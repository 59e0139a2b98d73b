"""Forward broadcasting: a bias tangent of shape (3,) is copied to the output's shape (2, 3)."""

import numpy as np

from ad_core import make_jvp, make_vjp
from ad_core.recorder import record
from bookkit import checked, events_table, given, text

batch = np.arange(6.0).reshape(2, 3)
bias = np.array([10.0, 20.0, 30.0])
bias_direction = np.array([1.0, 2.0, 3.0])

# --8<-- [start:record]
with record() as recording:
    output, output_tangent = make_jvp(lambda b: batch + b)(bias)(bias_direction)
# --8<-- [end:record]

# What each recorded stage must hold, written out with NumPy indexing rather than the engine's
# expand_dims / repeat: one copy of the direction per row of the batch.
copies = np.array([bias_direction] * batch.shape[0])
expected_value = {
    ("broadcast", "enter"): bias_direction,
    ("broadcast", "expand_dims"): bias_direction[None, :],
    ("broadcast", "repeat"): copies,
    ("jvp", None): copies,
    ("forward", None): batch + np.array([bias] * batch.shape[0]),
}
expected_axis = {"expand_dims": 0, "repeat": 0}  # the leading axis is the one that is new


def expected(event):
    return expected_value[event.kind, event.detail.get("stage")]


stages = recording.of_kind("broadcast")
assert [event.detail["stage"] for event in stages] == ["enter", "expand_dims", "repeat"]
print(events_table(
    recording.events,
    ["step", "kind", "primitive", "argnum", "value", "shape",
     ("stage", lambda e: e.detail.get("stage")),
     ("axis", lambda e: e.detail.get("axis"))],
    checks={
        "value": expected,
        "shape": lambda e: np.shape(expected(e)),
        "axis": lambda e: expected_axis.get(e.detail.get("stage")),
    },
))

# The same map run backward: unbroadcast sums what broadcast copied.
vjp, _ = make_vjp(lambda b: batch + b)(bias)
cotangent = np.ones((2, 3))
inner_forward = float(np.sum(cotangent * output_tangent))
inner_backward = float(np.dot(vjp(cotangent), bias_direction))
assert inner_forward == inner_backward
print(text(
    "\nThe tangent {direction} became one copy per row, shape {shape}: `expand_dims` added "
    "the leading axis, `repeat` filled it. In reverse, `unbroadcast` sums those copies: with "
    "a cotangent of ones both sides of "
    "$\\langle u, J\\dot b\\rangle = \\langle J^\\top u, \\dot b\\rangle$ equal {inner:g} "
    "(forward and reverse), which is the number of rows times the sum of the direction's "
    "entries.",
    direction=given(bias_direction),
    shape=checked(output_tangent.shape, against=np.broadcast_shapes(batch.shape, bias.shape)),
    inner=checked(inner_forward, against=batch.shape[0] * float(bias_direction.sum())),
))
