"""A weight shared across a batch of matmuls: the recorder shows unbroadcast summing the batch."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from ad_core.inspect import record
from bookkit import assert_shape_then_close, events_table, fmt_shape

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
assert stages[0].shape == (K, H, V) and stages[-1].shape == (H, V)
print(
    events_table(
        stages,
        ["step", "stage", "axis", "shape", "target_shape"],
    )
)
print()
print(
    f"`matmul_vjp_1` first computes one product $A_k^\\top G_k$ per batch element, shape "
    f"`{fmt_shape(per_batch.shape)}`; `unbroadcast` then sums the leading axis away because "
    f"$W$ has shape `{fmt_shape(shared.shape)}`. The same function that reduces a broadcast bias "
    "reduces a shared weight."
)
