"""State snapshot: what the engine does when a binary rule with unbroadcast_f runs."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from bookkit import events_table

batch = np.arange(6.0).reshape(2, 3)
bias = np.array([10.0, 20.0, 30.0])

# --8<-- [start:record]
with record() as recording:
    bias_gradient = grad(lambda b: anp.sum(batch * b))(bias)
# --8<-- [end:record]

np.testing.assert_array_equal(bias_gradient, batch.sum(axis=0))
kinds = [event.kind for event in recording.events]
vjp_of_multiply = next(e for e in recording.events if e.kind == "vjp" and e.primitive == "multiply")
assert vjp_of_multiply.argnum == 1 and vjp_of_multiply.shape == bias.shape
assert vjp_of_multiply.detail["cotangent"].shape == batch.shape
assert kinds.count("forward") == 2 and "unbroadcast" in kinds
print(events_table(recording.events, [
    "step", "kind", "node", "primitive", "argnum", "value", "shape",
    ("unbroadcast stage", lambda e: e.detail.get("stage")),
]))
print(
    f"\nThe `vjp` row of `multiply` (step {vjp_of_multiply.step}) is the closure built by the "
    f"maker for argument 1: it received a cotangent of shape "
    f"`{vjp_of_multiply.detail['cotangent'].shape}`, computed `g * batch`, let `unbroadcast` "
    f"sum axis 0, and handed back shape `{vjp_of_multiply.shape}`, the shape of `bias`."
)
