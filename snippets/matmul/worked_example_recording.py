"""The worked example's backward pass as the engine's recorder saw it."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from ad_core.inspect import record
from bookkit import assert_shape_then_close, events_table

h = np.array([[2.0, -1.0]])
W2 = np.array([[1.0, 3.0], [4.0, 2.0]])
b2 = np.array([0.1, -0.2])
dZ = np.array([[0.5, -0.25]])

# --8<-- [start:record]
with record() as recording:
    vjp_W2, Z = make_vjp(lambda w: anp.matmul(h, w) + b2)(W2)
    dW2 = vjp_W2(dZ)
# --8<-- [end:record]
assert_shape_then_close(dW2, h.T @ dZ)

events = recording.of_kind("forward", "visit", "vjp")
vjp_events = [event for event in events if event.kind == "vjp"]
assert [event.primitive for event in vjp_events] == ["add", "matmul"]
assert_shape_then_close(vjp_events[-1].value, dW2)
print(
    events_table(
        events,
        [
            "step",
            "kind",
            "primitive",
            "argnum",
            "shape",
            ("incoming cotangent", lambda e: e.detail.get("cotangent")),
            "value",
        ],
    )
)
print()
print(
    "The add's VJP passes $\\bar Z$ through unchanged to the matmul output (argument 0), and the "
    "matmul's VJP for argument 1 turns it into $h^\\top \\bar Z$, the same $\\bar W_2$ as above."
)
