"""Train briefly with each version of the `+=` line: a wrong gradient can still lower the loss."""

import numpy as np

from bookkit import md_table
from bookkit.mlp_by_hand import (
    BATCH_SIZE,
    PARAM_NAMES,
    backward_hpreact_to_input,
    backward_loss_to_hpreact,
    calibrate_batchnorm,
    evaluate_loss,
    forward,
    init_params,
    make_splits,
)

STEPS, WINDOW, LR = 200, 40, 0.1
splits = make_splits()


def short_run(variant: str) -> tuple[float, float, float]:
    params = init_params()
    rng = np.random.default_rng(7)          # the same minibatches for every variant
    losses = []
    for _ in range(STEPS):
        index = rng.integers(0, splits.Xtr.shape[0], size=BATCH_SIZE)
        Xb, Yb = splits.Xtr[index], splits.Ytr[index]
        cache = forward(params, Xb, Yb)
        upper = backward_loss_to_hpreact(params, cache, Yb, accumulate_counts=variant)
        grads = {**upper, **backward_hpreact_to_input(params, cache, Xb, upper["hpreact"])}
        for name in PARAM_NAMES:
            params[name] -= LR * grads[name].reshape(params[name].shape)
        losses.append(float(cache["loss"]))
    bnmean, bnvar = calibrate_batchnorm(params, splits.Xtr)
    val = evaluate_loss(params, splits.Xva, splits.Yva, bnmean, bnvar)
    return float(np.mean(losses[:WINDOW])), float(np.mean(losses[-WINDOW:])), val


results = {variant: short_run(variant) for variant in ("+=", "drop", "=")}
correct, dropped, overwritten = results["+="], results["drop"], results["="]
# The deleted line still lowers the training loss a little...
assert dropped[1] < dropped[0]
# ...but far less than the correct gradient, and the overwriting version diverges.
assert correct[2] < dropped[2] - 0.3 and overwritten[1] > overwritten[0]
labels = {"+=": "`dcounts += ...` (correct)", "drop": "line deleted", "=": "`+=` written as `=`"}
print(md_table(
    ["backward pass", f"mean loss, first {WINDOW} steps", f"mean loss, last {WINDOW} steps",
     "validation loss after"],
    [[labels[v], f"{a:.4f}", f"{b:.4f}", f"{c:.4f}"] for v, (a, b, c) in results.items()],
    align=["left", "right", "right", "right"],
))
print()
print(
    f"{STEPS} SGD steps from the same start on the same minibatches. With the line deleted the "
    f"training loss still falls, from {dropped[0]:.4f} to {dropped[1]:.4f}: watching it, you "
    f"could believe the backward pass works. The correct gradient reaches a validation loss of "
    f"{correct[2]:.4f} in the same steps; the overwriting version makes the loss grow."
)
