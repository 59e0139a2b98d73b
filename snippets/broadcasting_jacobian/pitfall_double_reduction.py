"""Pitfall 3: data-parallel training that reduces twice, simulated with NumPy ranks."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import fmt_array, md_table

world_size = 4
local_batch = 8
n = 3
rng = np.random.default_rng(17)
global_inputs = rng.normal(size=(world_size * local_batch, n))
global_targets = rng.normal(size=(world_size * local_batch, n))
bias = rng.normal(size=n)


def loss_mean(b, inputs, targets):
    return anp.sum((inputs + b - targets) ** 2) / inputs.shape[0]


def loss_sum(b, inputs, targets):
    return anp.sum((inputs + b - targets) ** 2)


# --8<-- [start:ranks]
def rank_gradients(loss):
    """Each rank differentiates its own slice of the global batch."""
    input_shards = np.split(global_inputs, world_size)
    target_shards = np.split(global_targets, world_size)
    return [grad(loss)(bias, x, t) for x, t in zip(input_shards, target_shards, strict=True)]


def all_reduce(gradients, op):
    total = np.sum(gradients, axis=0)  # what every rank holds after a sum all-reduce
    return total if op == "sum" else total / len(gradients)


# --8<-- [end:ranks]


reference_mean = grad(loss_mean)(bias, global_inputs, global_targets)
reference_sum = grad(loss_sum)(bias, global_inputs, global_targets)

rows = []
outcomes = {}
for loss, reference in [(loss_mean, reference_mean), (loss_sum, reference_sum)]:
    local = rank_gradients(loss)
    for op in ["sum", "mean"]:
        reduced = all_reduce(local, op)
        ratio = np.linalg.norm(reduced) / np.linalg.norm(reference)
        outcomes[(loss.__name__, op)] = ratio
        if np.isclose(ratio, 1.0, rtol=1e-12):
            verdict = "matches one process"
        elif ratio > 1:
            verdict = f"{ratio:g} times too large"
        else:
            verdict = f"{1 / ratio:g} times too small"
        rows.append(
            [
                "mean over the local batch" if loss is loss_mean else "sum over the local batch",
                f"all-reduce {op}",
                f"`{fmt_array(reduced)}`",
                f"`{fmt_array(reference)}`",
                verdict,
            ]
        )

assert np.isclose(outcomes[("loss_mean", "sum")], world_size, rtol=1e-12)
assert np.isclose(outcomes[("loss_mean", "mean")], 1.0, rtol=1e-12)
assert np.isclose(outcomes[("loss_sum", "sum")], 1.0, rtol=1e-12)
assert np.isclose(outcomes[("loss_sum", "mean")], 1 / world_size, rtol=1e-12)

print(
    md_table(
        [
            "local loss",
            "all-reduce",
            "gradient every rank holds",
            "one process, global batch",
            "verdict",
        ],
        rows,
    )
)
print()
print(
    f"With {world_size} ranks of {local_batch} examples each, a mean loss followed by a sum "
    f"all-reduce gives a gradient exactly {world_size} times too large: each rank already "
    f"divided by its own batch, and the all-reduce adds {world_size} such averages. "
    "The reduction op has to match the loss convention: mean with mean, sum with sum."
)
