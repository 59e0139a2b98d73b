"""A weight shared across a batch of matmuls: the recorder shows unbroadcast summing the batch."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from ad_core.recorder import record
from bookkit import assert_shape_then_close, checked, events_table, given, text

K, B, H, V = 2, 3, 4, 5
rng = np.random.default_rng(6)
stack = rng.normal(size=(K, B, H))
shared = rng.normal(size=(H, V))
upstream = rng.normal(size=(K, B, V))

# --8<-- [start:record]
with record() as recording:
    vjp_shared, _ = make_vjp(lambda w: anp.matmul(stack, w))(shared)
    shared_gradient = vjp_shared(upstream)
# --8<-- [end:record]

per_batch = np.swapaxes(stack, -1, -2) @ upstream  # one Aₖᵀ Gₖ per batch element
assert per_batch.shape == (K, H, V)
assert_shape_then_close(shared_gradient, per_batch.sum(axis=0))

stages = recording.of_kind("unbroadcast")
assert [event.detail["stage"] for event in stages] == ["enter", "sum_leading", "return"]
# What each stage must hold, from NumPy alone: the per-batch products, then their sum over k.
expected = {
    "enter": (per_batch, None),
    "sum_leading": (per_batch.sum(axis=0), 0),
    "return": (per_batch.sum(axis=0), None),
}
print(
    events_table(
        stages,
        ["step", "stage", "axis", "shape", "target_shape"],
        checks={
            "axis": lambda event: expected[event.detail["stage"]][1],
            "shape": lambda event: expected[event.detail["stage"]][0].shape,
            "target_shape": lambda event: shared.shape,
        },
    )
)
for event in stages:
    checked(event.value, against=expected[event.detail["stage"]][0], rtol=1e-12, atol=1e-12)
print()
print(
    text(
        "`matmul_vjp_1` first computes one product $A_k^\\top G_k$ per batch element, shape "
        "{per_batch}; `unbroadcast` then sums the leading axis away because "
        "$W$ has shape {shared}. The same function that reduces a broadcast bias "
        "reduces a shared weight.",
        per_batch=checked(stages[0].shape, against=(K, H, V)),
        shared=given(shared.shape),
    )
)
