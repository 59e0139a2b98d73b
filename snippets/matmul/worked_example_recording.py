"""The worked example's backward pass as the engine's recorder saw it."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from ad_core.recorder import record
from bookkit import assert_shape_then_close, checked, events_table, text

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
# What each row must hold, from NumPy alone, by (kind, primitive).
product = h @ W2
dW2_by_formula = h.T @ dZ
expected_value = {
    ("forward", "matmul"): product,
    ("forward", "add"): product + b2,
    ("visit", "add"): dZ,  # the seed: the output's cotangent
    ("vjp", "add"): dZ,  # an add passes the cotangent on unchanged
    ("visit", "matmul"): dZ,
    ("vjp", "matmul"): dW2_by_formula,
    ("visit", "root"): dW2_by_formula,  # the root (W2) holds its gradient
}
expected_incoming = {("vjp", "add"): dZ, ("vjp", "matmul"): dZ}


def key(event):
    return (event.kind, event.primitive)


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
        checks={
            "shape": lambda e: expected_value[key(e)].shape,
            "incoming cotangent": lambda e: expected_incoming.get(key(e)),
            "value": lambda e: expected_value[key(e)],
        },
    )
)
print()
add_event, matmul_event = vjp_events
print(
    text(
        "The add's VJP passes $\\bar Z$ through unchanged to the matmul output (argument "
        "{add_argnum}), and the matmul's VJP for argument {matmul_argnum} turns it into "
        "$h^\\top \\bar Z$, the same $\\bar W_2$ as above.",
        # The add's first operand is the matmul's output; W2 is the matmul's second operand.
        add_argnum=checked(add_event.argnum, against=0),
        matmul_argnum=checked(matmul_event.argnum, against=1),
    )
)
