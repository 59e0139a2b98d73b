"""Train briefly with each version of the `+=` line: a wrong gradient can still lower the loss."""

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

names_data = load_snippet_module("snippets/network_by_hand/_names_data.py")
model = load_snippet_module("snippets/network_by_hand/_model.py")
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
training = load_snippet_module("snippets/network_by_hand/_training.py")
make_splits = names_data.make_splits
BATCH_SIZE = model.BATCH_SIZE
PARAM_NAMES = model.PARAM_NAMES
forward = model.forward
init_params = model.init_params
backward_hpreact_to_input = by_hand.backward_hpreact_to_input
backward_loss_to_hpreact = by_hand.backward_loss_to_hpreact
calibrate_batchnorm = training.calibrate_batchnorm
cross_entropy = training.cross_entropy
evaluate_loss = training.evaluate_loss
evaluate_loss_atomic = training.evaluate_loss_atomic

STEPS, WINDOW, LR = 200, 40, 0.1
splits = make_splits()


def short_run(variant: str) -> tuple:
    """Mean loss of the first and last WINDOW steps and the validation loss after training, each
    paired with the same figure computed another way (log-sum-exp instead of the atomic chain)."""
    params = init_params()
    rng = np.random.default_rng(7)          # the same minibatches for every variant
    losses, losses_lse = [], []
    for _ in range(STEPS):
        index = rng.integers(0, splits.Xtr.shape[0], size=BATCH_SIZE)
        Xb, Yb = splits.Xtr[index], splits.Ytr[index]
        cache = forward(params, Xb, Yb)
        upper = backward_loss_to_hpreact(params, cache, Yb, accumulate_counts=variant)
        grads = {**upper, **backward_hpreact_to_input(params, cache, Xb, upper["hpreact"])}
        for name in PARAM_NAMES:
            params[name] -= LR * grads[name].reshape(params[name].shape)
        losses.append(float(cache["loss"]))
        losses_lse.append(cross_entropy(cache["logits"], Yb))
    bnmean, bnvar = calibrate_batchnorm(params, splits.Xtr)
    val = evaluate_loss(params, splits.Xva, splits.Yva, bnmean, bnvar)
    val_atomic = evaluate_loss_atomic(params, splits.Xva, splits.Yva, bnmean, bnvar)
    return (
        float(np.mean(losses[:WINDOW])), float(np.mean(losses[-WINDOW:])), val,
        float(np.mean(losses_lse[:WINDOW])), float(np.mean(losses_lse[-WINDOW:])), val_atomic,
    )


def shown(value: float, other: float):
    # two implementations of the same cross-entropy agree to rounding
    return checked(value, against=other, rtol=1e-12, shown_as=lambda v: f"{v:.4f}")


results = {variant: short_run(variant) for variant in ("+=", "drop", "=")}
correct, dropped, overwritten = results["+="], results["drop"], results["="]
# The deleted line still lowers the training loss a little...
assert dropped[1] < dropped[0]
# ...but far less than the correct gradient, and the overwriting version diverges.
assert correct[2] < dropped[2] - 0.3 and overwritten[1] > overwritten[0]
labels = {"+=": "`dcounts += ...` (correct)", "drop": "line deleted", "=": "`+=` written as `=`"}
print(md_table(
    ["backward pass", text("mean loss, first {w} steps", w=given(WINDOW)),
     text("mean loss, last {w} steps", w=given(WINDOW)), "validation loss after"],
    [[labels[v], shown(r[0], r[3]), shown(r[1], r[4]), shown(r[2], r[5])] for v, r in results.items()],
    align=["left", "right", "right", "right"],
))
print()
print(text(
    "{steps} SGD steps from the same start on the same minibatches. With the line deleted the "
    "training loss still falls, from {first} to {last}: watching it, you could believe the "
    "backward pass works. The correct gradient reaches a validation loss of {val} in the same "
    "steps; the overwriting version makes the loss grow.",
    steps=given(STEPS),
    first=shown(dropped[0], dropped[3]),
    last=shown(dropped[1], dropped[4]),
    val=shown(correct[2], correct[5]),
))
