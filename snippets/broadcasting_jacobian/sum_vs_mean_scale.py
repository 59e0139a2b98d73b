"""Where the 1/m and 1/(mn) factors come from: the loss, not the broadcast."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import md_table

n = 4
small_batch, large_batch = 32, 256
rng = np.random.default_rng(2024)
bias = np.array([0.5, -1.0, 1.5, 0.25])  # a non-zero bias so the gradient has a direction


# --8<-- [start:losses]
def loss_sum(b, x):
    return anp.sum((x + b) ** 2)


def loss_mean_over_batch(b, x):
    return anp.sum((x + b) ** 2) / x.shape[0]


def loss_mean_over_elements(b, x):
    return anp.mean((x + b) ** 2)


# --8<-- [end:losses]


conventions = [
    (r"$\ell_{\text{sum}} = \sum_{i,j} Y_{ij}^2$", loss_sum),
    (r"$\ell = \frac{1}{m}\sum_{i,j} Y_{ij}^2$", loss_mean_over_batch),
    (r"$\ell_{\text{mean}} = \frac{1}{mn}\sum_{i,j} Y_{ij}^2$", loss_mean_over_elements),
]

fresh_large = rng.normal(size=(large_batch, n))
fresh_small = fresh_large[:small_batch]
copies = large_batch // small_batch
repeated_large = np.tile(fresh_small, (copies, 1))  # the small batch seen `copies` times

rows = []
ratios_on_copies = {}
ratios_on_fresh = {}
for label, loss in conventions:
    gradient_of = grad(loss)
    norm_small = np.linalg.norm(gradient_of(bias, fresh_small))
    norm_large = np.linalg.norm(gradient_of(bias, fresh_large))
    ratio_fresh = norm_large / norm_small
    ratio_copies = np.linalg.norm(gradient_of(bias, repeated_large)) / norm_small
    ratios_on_copies[loss.__name__] = ratio_copies
    ratios_on_fresh[loss.__name__] = ratio_fresh
    rows.append(
        [
            label,
            f"{norm_small:.4f}",
            f"{norm_large:.4f}",
            f"{ratio_fresh:.3f}",
            f"{ratio_copies:.3f}",
        ]
    )

# On identical data the scale changes exactly as the loss says, and nothing else contributes.
assert np.isclose(ratios_on_copies["loss_sum"], copies, rtol=1e-12)
assert np.isclose(ratios_on_copies["loss_mean_over_batch"], 1.0, rtol=1e-12)
assert np.isclose(ratios_on_copies["loss_mean_over_elements"], 1.0, rtol=1e-12)

# "Close to" in the text below: fresh rows stay within a quarter of the exact factor.
assert 0.75 * copies < ratios_on_fresh["loss_sum"] < 1.25 * copies
assert 0.75 < ratios_on_fresh["loss_mean_over_elements"] < 1.25

# The broadcast reduction is a plain sum: the sum-loss gradient is exactly m·n times the mean one.
gradient_sum = grad(loss_sum)(bias, fresh_small)
gradient_mean = grad(loss_mean_over_elements)(bias, fresh_small)
assert np.allclose(gradient_sum, small_batch * n * gradient_mean, rtol=1e-12)
assert np.allclose(gradient_sum, 2 * (fresh_small + bias).sum(axis=0), rtol=1e-12)

print(
    md_table(
        [
            "loss convention",
            rf"$\lVert\bar b\rVert$, $m = {small_batch}$",
            rf"$\lVert\bar b\rVert$, $m = {large_batch}$",
            "ratio (fresh rows)",
            f"ratio ({copies} copies of the small batch)",
        ],
        rows,
        align=["left", "right", "right", "right", "right"],
    )
)
print()
print(
    f"With the sum convention the gradient grows with the batch: exactly {copies} times when the "
    f"large batch is {copies} copies of the small one, and close to {copies} times on fresh rows. "
    "Both mean conventions keep the scale. At this batch the sum-loss gradient is exactly "
    f"$mn = {small_batch * n}$ times the mean-loss gradient: the broadcast contributes a sum "
    f"and nothing else. If you train with the sum loss and move from {small_batch} to "
    f"{large_batch} examples, divide the learning rate by {copies} to keep the same step."
)
