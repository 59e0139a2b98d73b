"""The tempting wrong mean: dividing a weighted, ignore_index loss by the batch size B instead of
by Σ r. The same gradient array is wrong for one loss and right for the other, so central
differences catch a wrong gradient but not a wrong definition."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from bookkit import central_differences, checked, load_snippet_module, md_table, text

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))
batch = load_snippet_module(Path(__file__).with_name("_variants.py"))
z, B, IGNORE = batch.LOGITS, batch.B, batch.IGNORE
name, options, labels = batch.VARIANTS[-1]            # class weights and ignored rows together
assert name == "weights and ignore_index"


# --8<-- [start:wrong]
def loss_over_B(z, y, weight, ignore_index):
    """The wrong definition: the weighted sum over kept rows divided by the batch size."""
    kept = y != ignore_index
    r = weight[np.where(kept, y, 0)] * kept                              # (B,)
    picked = anp.sum(np.eye(z.shape[1])[np.where(kept, y, 0)] * helpers.log_softmax(z), axis=1)
    return -anp.sum(r * picked) / len(y)


def gradient_over_B(z, y, weight, ignore_index):
    """r_b (p_b - onehot) / B: the gradient of loss_over_B, not of PyTorch's weighted mean."""
    kept = y != ignore_index
    r = weight[np.where(kept, y, 0)] * kept
    return helpers.cross_entropy_gradient(z, y, weight=weight, ignore_index=ignore_index) * r.sum() / len(y)
# --8<-- [end:wrong]


right_gradient = helpers.cross_entropy_gradient(z, labels, **options)
wrong_gradient = gradient_over_B(z, labels, **options)
kept = labels != IGNORE
ratio = float(batch.WEIGHTS[labels[kept]].sum() / B)          # Σ r / B, counted from the labels
TOLERANCE = 1e-8


def right_loss(x):
    return float(helpers.cross_entropy(x, labels, **options))


def wrong_loss(x):
    return float(loss_over_B(x, labels, **options))


cases = [  # version, loss, gradient, is the gradient that loss's derivative?
    ("right loss, right gradient", right_loss, right_gradient, True),
    ("right loss, gradient divided by $B$", right_loss, wrong_gradient, False),
    ("loss and gradient divided by $B$", wrong_loss, wrong_gradient, True),
]
rows = []
for label, loss, gradient, consistent in cases:
    gap = float(np.abs(central_differences(loss, z) - gradient).max())
    # A consistent pair differs only by the differences' error; an inconsistent one by the factor.
    expected_gap = 0.0 if consistent else float(np.abs(right_gradient).max()) * abs(1 - ratio)
    rows.append([
        label,
        checked(loss(z), against=right_loss(z) * (1.0 if loss is right_loss else ratio), rtol=1e-13,
                shown_as=lambda v: f"{v:.6f}"),
        checked(gap, against=expected_gap, rtol=1e-4, atol=TOLERANCE, shown_as=lambda v: f"{v:.1e}"),
        checked("passes" if gap < TOLERANCE else "fails", against="passes" if consistent else "fails"),
    ])
print(md_table(["version", "loss", "largest gap to central differences", "gradient check"], rows))
print()
print(text(
    "Here $\\sum_b r_b / B$ = {ratio}, so the batch-size mean scales the loss and every gradient "
    "entry by that factor. A gradient that disagrees with its own loss fails the gradient check. "
    "A loss defined with the wrong denominator passes it: its gradient is correct *for it*, and "
    "only a comparison of the loss value with the reference definition catches it.",
    ratio=checked(ratio, against=float(wrong_loss(z) / right_loss(z)), rtol=1e-13,
                  shown_as=lambda v: f"{v:.4f}"),
))
