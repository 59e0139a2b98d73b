"""The forward twin: jvps.broadcast expands a tangent, recorded while make_jvp runs x + b."""

import numpy as np

from ad_core import make_jvp
from ad_core.inspect import record
from ad_core.numpy.jvps import broadcast
from bookkit import assert_shape_then_close, events_table, load_snippet_module, show_source

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

print(show_source(broadcast))

matrix, b = helpers.MATRIX, helpers.VECTOR_BIAS
tangent_b = np.array([1.0, 0.0, 0.0])          # nudge only b[0]

# --8<-- [start:forward]
with record() as recording:
    output, tangent_out = make_jvp(lambda b: matrix + b)(b)(tangent_b)
# --8<-- [end:forward]

stages = [event for event in recording.events if event.kind == "broadcast"]
assert [event.detail["stage"] for event in stages] == ["enter", "expand_dims", "repeat"]
assert_shape_then_close(tangent_out, np.broadcast_to(tangent_b, matrix.shape))
assert_shape_then_close(output, matrix + b)

print()
print(events_table(stages, ["step", "stage", "axis", "value", "shape"]))
print()
print(
    "A nudge to `b[0]` alone moves the whole first column of the output: the tangent is "
    "copied, where the cotangent was summed. Stage by stage, `expand_dims` is the transpose "
    "of the leading sum and `repeat` the transpose of the keepdims sum."
)
