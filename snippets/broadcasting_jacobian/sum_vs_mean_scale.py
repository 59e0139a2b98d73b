"""Where the 1/m and 1/(mn) factors come from: the loss, not the broadcast."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, md_table, text

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

# The independent side: the closed form. Every convention's gradient is 2 Σ_i (x_i + b) times the
# factor its loss divides by (1, 1/m, 1/(mn)); the sum loss is the plain batch sum.
factors = {
    "loss_sum": lambda x: 1.0,
    "loss_mean_over_batch": lambda x: 1.0 / x.shape[0],
    "loss_mean_over_elements": lambda x: 1.0 / x.size,
}


def closed_form_norm(name, x):
    return np.linalg.norm(2 * (x + bias).sum(axis=0) * factors[name](x))


# On identical data (copies of the small batch) the scale changes by exactly the loss's factor.
factor_on_copies = {"loss_sum": copies, "loss_mean_over_batch": 1.0, "loss_mean_over_elements": 1.0}
ROUNDING = 1e-12  # the engine and the closed form add the same numbers in different orders

rows = []
ratios_on_fresh = {}
for label, loss in conventions:
    name = loss.__name__
    gradient_of = grad(loss)
    norm_small = np.linalg.norm(gradient_of(bias, fresh_small))
    norm_large = np.linalg.norm(gradient_of(bias, fresh_large))
    ratio_fresh = norm_large / norm_small
    ratio_copies = np.linalg.norm(gradient_of(bias, repeated_large)) / norm_small
    ratios_on_fresh[name] = ratio_fresh
    closed_small, closed_large = closed_form_norm(name, fresh_small), closed_form_norm(name, fresh_large)
    rows.append(
        [
            label,
            text("{v:.4f}", v=checked(norm_small, against=closed_small, rtol=ROUNDING)),
            text("{v:.4f}", v=checked(norm_large, against=closed_large, rtol=ROUNDING)),
            text("{v:.3f}", v=checked(ratio_fresh, against=closed_large / closed_small, rtol=ROUNDING)),
            text("{v:.3f}", v=checked(ratio_copies, against=factor_on_copies[name], rtol=ROUNDING)),
        ]
    )

# "Close to" in the text below: fresh rows stay within a quarter of the exact factor.
assert 0.75 * copies < ratios_on_fresh["loss_sum"] < 1.25 * copies
assert 0.75 < ratios_on_fresh["loss_mean_over_elements"] < 1.25

# The broadcast reduction is a plain sum: the sum-loss gradient is m·n times the mean one.
gradient_sum = grad(loss_sum)(bias, fresh_small)
gradient_mean = grad(loss_mean_over_elements)(bias, fresh_small)
scale_between = np.unique(np.round(gradient_sum / gradient_mean, 9))

print(
    md_table(
        [
            "loss convention",
            text(r"$\lVert\bar b\rVert$, $m = {m}$", m=given(small_batch)),
            text(r"$\lVert\bar b\rVert$, $m = {m}$", m=given(large_batch)),
            "ratio (fresh rows)",
            text("ratio ({copies} copies of the small batch)", copies=given(copies)),
        ],
        rows,
        align=["left", "right", "right", "right", "right"],
    )
)
print()
print(
    text(
        "With the sum convention the gradient grows with the batch: exactly {copies} times when the "
        "large batch is {copies} copies of the small one, and close to {copies} times on fresh rows. "
        "Both mean conventions keep the scale. At this batch the sum-loss gradient is exactly "
        "$mn = {mn}$ times the mean-loss gradient: the broadcast contributes a sum "
        "and nothing else. If you train with the sum loss and move from {small} to "
        "{large} examples, divide the learning rate by {copies} to keep the same step.",
        copies=given(copies),
        mn=checked(
            scale_between, against=np.array([float(small_batch * n)]), shown_as=lambda v: str(int(v[0]))
        ),
        small=given(small_batch),
        large=given(large_batch),
    )
)
