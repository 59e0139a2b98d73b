"""Pitfall 3: data-parallel training that reduces twice, simulated with NumPy ranks."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, fmt_array, given, md_table, text

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


# The independent side: the closed form 2 Σ (x + b - t), divided by the rows when the loss is a mean.
def closed_form(inputs, targets, mean: bool) -> np.ndarray:
    total = 2 * (inputs + bias - targets).sum(axis=0)
    return total / inputs.shape[0] if mean else total


shards = list(zip(np.split(global_inputs, world_size), np.split(global_targets, world_size), strict=True))
ROUNDING = 1e-12  # the engine and the closed form add the same terms in different orders
# What the all-reduce must return relative to one process on the whole batch, from the conventions:
# a local mean already divided by the local batch; a sum all-reduce adds world_size of them.
expected_factor = {
    ("loss_mean", "sum"): world_size,
    ("loss_mean", "mean"): 1,
    ("loss_sum", "sum"): 1,
    ("loss_sum", "mean"): 1 / world_size,
}

rows = []
for loss, reference in [(loss_mean, reference_mean), (loss_sum, reference_sum)]:
    mean = loss is loss_mean
    local = rank_gradients(loss)
    one_process = closed_form(global_inputs, global_targets, mean)
    for op in ["sum", "mean"]:
        reduced = all_reduce(local, op)
        by_hand = sum(closed_form(x, t, mean) for x, t in shards) / (1 if op == "sum" else world_size)
        ratio = np.linalg.norm(reduced) / np.linalg.norm(reference)
        factor = expected_factor[(loss.__name__, op)]
        shown_ratio = checked(ratio, against=factor, rtol=ROUNDING)
        if factor == 1:
            verdict = checked(
                bool(np.isclose(ratio, 1.0, rtol=ROUNDING)),
                against=True,
                shown_as=lambda v: "matches one process",
            )
        elif factor > 1:
            verdict = text("{f:g} times too large", f=shown_ratio)
        else:
            verdict = text("{f:g} times too small", f=checked(1 / ratio, against=1 / factor, rtol=ROUNDING))
        rows.append(
            [
                "mean over the local batch" if mean else "sum over the local batch",
                f"all-reduce {op}",
                text(
                    "{v}",
                    v=checked(
                        reduced, against=by_hand, rtol=ROUNDING, shown_as=lambda v: f"`{fmt_array(v)}`"
                    ),
                ),
                text(
                    "{v}",
                    v=checked(
                        reference, against=one_process, rtol=ROUNDING, shown_as=lambda v: f"`{fmt_array(v)}`"
                    ),
                ),
                verdict,
            ]
        )

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
    text(
        "With {ranks} ranks of {local} examples each, a mean loss followed by a sum "
        "all-reduce gives a gradient exactly {ranks} times too large: each rank already "
        "divided by its own batch, and the all-reduce adds {ranks} such averages. "
        "The reduction op has to match the loss convention: mean with mean, sum with sum.",
        ranks=given(world_size),
        local=given(local_batch),
    )
)
