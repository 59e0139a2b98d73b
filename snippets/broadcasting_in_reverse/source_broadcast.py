"""The forward twin: jvps.broadcast expands a tangent, recorded while make_jvp runs x + b."""

from pathlib import Path

import numpy as np

from ad_core import make_jvp
from ad_core.numpy.jvps import broadcast
from ad_core.recorder import record
from bookkit import assert_shape_then_close, events_table, load_snippet_module, show_excerpt, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

print(show_excerpt(broadcast, r"while anp\.ndim\(x\) < target_ndim", r"x = anp\.repeat",
                   full_listing="[Forward mode](forward-mode.md)"))

matrix, b = helpers.MATRIX, helpers.VECTOR_BIAS
tangent_b = np.array([1.0, 0.0, 0.0])  # nudge only b[0]

# --8<-- [start:forward]
with record() as recording:
    output, tangent_out = make_jvp(lambda b: matrix + b)(b)(tangent_b)
# --8<-- [end:forward]

stages = [event for event in recording.events if event.kind == "broadcast"]
assert [event.detail["stage"] for event in stages] == ["enter", "expand_dims", "repeat"]
# What each stage must hold: the tangent of b, the same with a new first axis of size one, then
# that row repeated once per row of the output (NumPy's broadcast_to, not the engine).
expected = {
    "enter": tangent_b,
    "expand_dims": tangent_b.reshape(1, -1),
    "repeat": np.broadcast_to(tangent_b, matrix.shape),
}


class Shape(tuple):
    """A new tuple object, so that checked() never sees the shared empty tuple twice."""


print()
print(
    events_table(
        stages,
        ["step", "stage", "axis", "value", "shape"],
        checks={
            "axis": lambda e: {"enter": None, "expand_dims": 0, "repeat": 0}[e.detail["stage"]],
            "value": lambda e: expected[e.detail["stage"]],
            "shape": lambda e: Shape(np.shape(expected[e.detail["stage"]])),
        },
    )
)
assert_shape_then_close(output, matrix + b)
print()
print(
    text(
        "A nudge to `b[0]` alone moves the whole first column of the output ({column}): the tangent "
        "is copied, where the cotangent was summed. Stage by stage, the leading sum's transpose is "
        "`expand_dims` followed by `repeat` (insert the axis with size one, then copy along it), and "
        "a keepdims sum's transpose is `repeat` alone.",
        # The tangent from central differences of the forward map along the nudge.
        column=helpers.value_cell(
            tangent_out,
            (matrix + (b + 1e-6 * tangent_b) - (matrix + (b - 1e-6 * tangent_b))) / 2e-6,
            rtol=1e-8,
            atol=1e-8,
        ),
    )
)
