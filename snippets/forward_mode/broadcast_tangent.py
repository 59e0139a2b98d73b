"""Forward broadcasting: a bias tangent of shape (3,) is copied to the output's shape (2, 3)."""

import numpy as np

from ad_core import make_jvp, make_vjp
from ad_core.inspect import record
from bookkit import assert_shape_then_close, events_table, fmt_array

batch = np.arange(6.0).reshape(2, 3)
bias = np.array([10.0, 20.0, 30.0])
bias_direction = np.array([1.0, 2.0, 3.0])

# --8<-- [start:record]
with record() as recording:
    output, output_tangent = make_jvp(lambda b: batch + b)(bias)(bias_direction)
# --8<-- [end:record]

assert_shape_then_close(output_tangent, np.tile(bias_direction, (2, 1)), rtol=0.0)
stages = recording.of_kind("broadcast")
assert [event.detail["stage"] for event in stages] == ["enter", "expand_dims", "repeat"]
print(events_table(recording.events, [
    "step", "kind", "primitive", "argnum", "value", "shape",
    ("stage", lambda e: e.detail.get("stage")),
    ("axis", lambda e: e.detail.get("axis")),
]))

# The same map run backward: unbroadcast sums what broadcast copied.
vjp, _ = make_vjp(lambda b: batch + b)(bias)
cotangent = np.ones((2, 3))
inner_forward = float(np.sum(cotangent * output_tangent))
inner_backward = float(np.dot(vjp(cotangent), bias_direction))
assert inner_forward == inner_backward
print(
    f"\nThe tangent `{fmt_array(bias_direction)}` became one copy per row, shape "
    f"`{output_tangent.shape}`: `expand_dims` added the leading axis, `repeat` filled it. "
    f"In reverse, `unbroadcast` sums those copies: with a cotangent of ones both sides of "
    f"$\\langle u, J\\dot b\\rangle = \\langle J^\\top u, \\dot b\\rangle$ equal "
    f"`{inner_forward:g}`."
)
