"""After training: BatchNorm statistics from the whole training set, against the running ones."""

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

names_data = load_snippet_module("snippets/network_by_hand/_names_data.py")
model = load_snippet_module("snippets/network_by_hand/_model.py")
training = load_snippet_module("snippets/network_by_hand/_training.py")
make_splits = names_data.make_splits
BN_MOMENTUM, forward = model.BN_MOMENTUM, model.forward
calibrate_batchnorm = training.calibrate_batchnorm
evaluate_loss = training.evaluate_loss
evaluate_loss_atomic = training.evaluate_loss_atomic
train_by_hand = training.train_by_hand

run = train_by_hand()
splits = make_splits()
# --8<-- [start:calibrate]
bnmean, bnvar = calibrate_batchnorm(run.params, splits.Xtr)   # one pass over all training windows
# --8<-- [end:calibrate]
# The same statistics another way: the atomic forward pass run on the whole training set as one
# batch computes its mean and its (n - 1) variance step by step.
whole = forward(run.params, splits.Xtr, splits.Ytr)
mean_gap = float(np.max(np.abs(bnmean - run.running_mean)))
var_gap = float(np.max(np.abs(bnvar / run.running_var - 1)))
mean_gap_atomic = float(np.max(np.abs(whole["bnmeani"] - run.running_mean)))
var_gap_atomic = float(np.max(np.abs(whole["bnvar"] / run.running_var - 1)))


def losses(m: np.ndarray, v: np.ndarray) -> list:
    # log-sum-exp evaluation checked against the atomic chain with the statistics swapped in
    return [
        checked(evaluate_loss(run.params, X, Y, m, v), against=evaluate_loss_atomic(run.params, X, Y, m, v),
                rtol=1e-12, shown_as=lambda value: f"{value:.4f}")
        for X, Y in ((splits.Xtr, splits.Ytr), (splits.Xva, splits.Yva))
    ]


calibrated = losses(bnmean, bnvar)
running = losses(run.running_mean, run.running_var)
gap = abs(calibrated[1].value - running[1].value)
# The two sets of statistics describe the same layer: the losses they give are close.
assert gap < 0.05
print(md_table(
    ["BatchNorm statistics", "train loss", "validation loss"],
    [["calibrated on the training set", *calibrated],
     [text("running estimates (momentum {m})", m=given(BN_MOMENTUM)), *running]],
    align=["left", "right", "right"],
))
print()
print(text(
    "The running estimates differ from the calibrated statistics by at most {mean} in a mean and "
    "{var} % in a variance; the validation losses differ by {gap}. Either way, at inference the "
    "layer no longer depends on the other examples of a batch, so a single context can be "
    "evaluated.",
    mean=checked(mean_gap, against=mean_gap_atomic, rtol=1e-6, shown_as=lambda v: f"{v:.3f}"),
    var=checked(100 * var_gap, against=100 * var_gap_atomic, rtol=1e-6, shown_as=lambda v: f"{v:.1f}"),
    gap=checked(gap, against=abs(evaluate_loss_atomic(run.params, splits.Xva, splits.Yva, bnmean, bnvar)
                                 - evaluate_loss_atomic(run.params, splits.Xva, splits.Yva,
                                                        run.running_mean, run.running_var)),
                rtol=1e-9, shown_as=lambda v: f"{v:.4f}"),
))
