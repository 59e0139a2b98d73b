"""Pitfall 2: an unreduced (m, n) gradient applied to an (n,) bias."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import fmt_shape, md_table

m, n = 6, 3
learning_rate = 0.1
rng = np.random.default_rng(5)
x = rng.normal(size=(m, n))
target = rng.normal(size=(m, n))
bias = rng.normal(size=n)


def loss(b, inputs, targets):
    return anp.mean((inputs + b - targets) ** 2)


# --8<-- [start:unreduced]
upstream = 2 * (x + bias - target) / x.size  # d(loss)/dY, shape (m, n)
bias_gradient_unreduced = upstream  # forgot to sum over the batch axis
bias_gradient_right = upstream.sum(axis=0)  # (n,)

try:
    in_place = bias.copy()
    in_place -= learning_rate * bias_gradient_unreduced
    in_place_outcome = f"runs, shape {fmt_shape(in_place.shape)}"
except ValueError as error:
    in_place_outcome = f"ValueError: {error}"

bias_after_bad_step = bias - learning_rate * bias_gradient_unreduced  # silently (m, n)
bias_after_good_step = bias - learning_rate * bias_gradient_right
# --8<-- [end:unreduced]

assert np.allclose(bias_gradient_right, grad(loss)(bias, x, target), rtol=1e-12)
assert in_place_outcome.startswith("ValueError")
assert bias_after_bad_step.shape == (m, n)

# The swollen "bias" still works at this batch size, so nothing crashes...
loss_after_bad = float(loss(bias_after_bad_step, x, target))
loss_after_good = float(loss(bias_after_good_step, x, target))
# ...but each row now has its own bias, so this is a different model taking a different step.
assert not np.isclose(loss_after_bad, loss_after_good)
rows_differ = not np.allclose(bias_after_bad_step, bias_after_bad_step[0])
assert rows_differ

# The next batch of a different size exposes it.
next_batch = rng.normal(size=(m - 2, n))
try:
    _ = next_batch + bias_after_bad_step
    next_batch_outcome = "runs"
except ValueError as error:
    next_batch_outcome = f"ValueError: {error}"
assert next_batch_outcome.startswith("ValueError")

rows = [
    [
        "`b -= lr * G`",
        f"`{fmt_shape(bias.shape)}` vs `{fmt_shape(upstream.shape)}`",
        in_place_outcome,
    ],
    [
        "`b = b - lr * G`",
        f"`{fmt_shape(bias.shape)}` vs `{fmt_shape(upstream.shape)}`",
        f"no error: `b` is now `{fmt_shape(bias_after_bad_step.shape)}`, one bias per row",
    ],
    [
        "loss on the same batch after one step",
        "",
        f"{loss_after_bad:.4f} with the swollen `b`, {loss_after_good:.4f} with the right step: "
        "training goes on, with the wrong numbers",
    ],
    [
        f"next batch of {m - 2} rows",
        f"`{fmt_shape(next_batch.shape)}` + `{fmt_shape(bias_after_bad_step.shape)}`",
        next_batch_outcome,
    ],
]
print(md_table(["what you run", "shapes", "what happens"], rows))
