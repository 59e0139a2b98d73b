"""After training: BatchNorm statistics from the whole training set, against the running ones."""

import numpy as np

from bookkit import md_table
from bookkit.mlp_by_hand import calibrate_batchnorm, evaluate_loss, make_splits, train_by_hand

run = train_by_hand()
splits = make_splits()
# --8<-- [start:calibrate]
bnmean, bnvar = calibrate_batchnorm(run.params, splits.Xtr)   # one pass over all training windows
# --8<-- [end:calibrate]
mean_gap = float(np.max(np.abs(bnmean - run.running_mean)))
var_gap = float(np.max(np.abs(bnvar / run.running_var - 1)))
results = {
    label: (evaluate_loss(run.params, splits.Xtr, splits.Ytr, m, v),
            evaluate_loss(run.params, splits.Xva, splits.Yva, m, v))
    for label, m, v in [
        ("calibrated on the training set", bnmean, bnvar),
        ("running estimates (momentum 0.01)", run.running_mean, run.running_var),
    ]
}
calibrated = results["calibrated on the training set"]
running = results["running estimates (momentum 0.01)"]
# The two sets of statistics describe the same layer: the losses they give are close.
assert abs(calibrated[1] - running[1]) < 0.05
print(md_table(
    ["BatchNorm statistics", "train loss", "validation loss"],
    [[label, f"{t:.4f}", f"{v:.4f}"] for label, (t, v) in results.items()],
    align=["left", "right", "right"],
))
print()
print(
    f"The running estimates differ from the calibrated statistics by at most {mean_gap:.3f} in a "
    f"mean and {100 * var_gap:.1f} % in a variance; the validation losses differ by "
    f"{abs(calibrated[1] - running[1]):.4f}. Either way, at inference the layer no longer "
    "depends on the other examples of a batch, so a single context can be evaluated."
)
