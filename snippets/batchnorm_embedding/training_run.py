"""Train the model with the hand-written backward pass only, and plot the loss."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, svg_figure, text

names_data = load_snippet_module("snippets/network_by_hand/_names_data.py")
model = load_snippet_module("snippets/network_by_hand/_model.py")
training = load_snippet_module("snippets/network_by_hand/_training.py")
make_splits = names_data.make_splits
BATCH_SIZE, N_HIDDEN, VOCAB_SIZE = model.BATCH_SIZE, model.N_HIDDEN, model.VOCAB_SIZE
calibrate_batchnorm = training.calibrate_batchnorm
evaluate_loss_atomic = training.evaluate_loss_atomic
logits_with_frozen_batchnorm = training.logits_with_frozen_batchnorm
train_by_hand = training.train_by_hand

run = train_by_hand()
steps = np.arange(run.steps)
window = 100
smoothed = np.convolve(run.losses, np.ones(window) / window, mode="valid")
checkpoint_steps = [step for step, _ in run.checkpoints]
val_losses = [val for _, val in run.checkpoints]
decay_step = int(np.flatnonzero(np.diff(run.learning_rates))[0]) + 1
spacing = checkpoint_steps[1] - checkpoint_steps[0]

# The run must have learned something: the loss falls well below a uniform guess.
assert val_losses[-1] < np.log(VOCAB_SIZE) - 0.8
# The page says the validation loss is still falling at the end of the run.
assert val_losses[-1] < val_losses[-1 - 1000 // spacing]
# A small model on a few thousand names: no sign of overfitting yet.
assert abs(val_losses[-1] - smoothed[-1]) < 0.1
# The page says the validation loss sits a little below the mean minibatch loss.
assert all(val < smoothed[step - window] for step, val in run.checkpoints if step >= window)

fig, ax = plt.subplots(figsize=(7.5, 4.2))
ax.plot(steps, run.losses, color="#c5cae9", linewidth=0.6, label=f"minibatch loss (B = {BATCH_SIZE})")
ax.plot(steps[window - 1:], smoothed, color="#3949ab", linewidth=1.5,
        label=f"mean of the last {window} minibatches")
ax.plot(checkpoint_steps, val_losses, "o-", color="#e65100", markersize=3,
        label="validation loss (running BatchNorm statistics)")
ax.axvline(decay_step, color="gray", linestyle=":", linewidth=1)
ax.text(decay_step, 3.0, " learning rate / 10", va="bottom", fontsize=8, color="gray")
ax.axhline(np.log(VOCAB_SIZE), color="gray", linestyle="--", linewidth=0.8)
ax.text(run.steps, np.log(VOCAB_SIZE), "log 27 (uniform guess)", va="bottom", ha="right",
        fontsize=8, color="gray")
ax.set_xlabel("step")
ax.set_ylabel("cross-entropy")
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, frameon=False)
fig.tight_layout()
print(svg_figure(fig, alt="Training loss of the MLP trained with hand-written gradients"))
plt.close(fig)
splits = make_splits()
print()
print(text(
    "{steps} steps of plain SGD on minibatches of {B}, learning rate {lr} and then {lr2} from step "
    "{decay}, seed {seed}. Every gradient came from `backward_by_hand`; the engine was not called.",
    steps=given(run.steps), B=given(BATCH_SIZE), lr=given(run.learning_rates[0], shown_as=lambda v: f"{v:g}"),
    lr2=checked(float(run.learning_rates[-1]), against=run.learning_rates[0] / 10,
                shown_as=lambda v: f"{v:g}"),
    decay=checked(decay_step, against=run.steps * 2 // 3),      # the loop's one step decay
    seed=given(run.seed),
))
print()
snapshot = {step: (params, mean, var) for step, params, mean, var in run.snapshots}


def validation(step: int, val: float):
    # recomputed from the parameters and running statistics saved at that step, with the
    # atomic forward pass
    params, mean, var = snapshot[step]
    return checked(val, against=evaluate_loss_atomic(params, splits.Xva, splits.Yva, mean, var),
                   rtol=1e-12, shown_as=lambda v: f"{v:.4f}")


shown = [(step, val) for step, val in run.checkpoints if step % 750 == 0]
print(md_table(
    ["step", text("mean minibatch loss (last {w} steps)", w=given(window)), "validation loss"],
    [
        [given(step, shown_as=str),
         checked(float(smoothed[step - window]), against=float(np.mean(run.losses[step - window:step])),
                 rtol=1e-12, shown_as=lambda v: f"{v:.4f}")
         if step >= window else given(None, shown_as=lambda v: "— (no steps yet)"),
         validation(step, val)]
        for step, val in shown
    ],
    align=["right", "right", "right"],
))
print()
print(text(
    "The validation loss is measured every {spacing} steps on all {windows} validation windows, "
    "with the running BatchNorm statistics of that moment; the calibrated statistics come next.",
    spacing=given(spacing),
    windows=checked(splits.Xva.shape[0], against=len(splits.Yva)),
))
print()

# Step 0: why the validation loss starts above log 27.
params0, mean0, var0 = snapshot[0]
val0 = dict(run.checkpoints)[0]
calibrated0 = calibrate_batchnorm(params0, splits.Xtr)
val0_calibrated = evaluate_loss_atomic(params0, splits.Xva, splits.Yva, *calibrated0)
Z = logits_with_frozen_batchnorm(params0, splits.Xva, mean0, var0)
rows = np.arange(len(splits.Yva))
shift = Z.max(axis=1, keepdims=True)
log_normaliser = np.log(np.exp(Z - shift).sum(axis=1)) + shift[:, 0]
not_uniform = float(np.mean(log_normaliser - Z.mean(axis=1)) - np.log(VOCAB_SIZE))   # >= 0 (Jensen)
on_targets = float(np.mean(Z.mean(axis=1) - Z[rows, splits.Yva]))
half_variance = float(np.mean(np.var(Z, axis=1)) / 2)
assert val0 > np.log(VOCAB_SIZE) and abs(val0_calibrated - val0) < 0.1 * (val0 - np.log(VOCAB_SIZE))
print(text(
    "At step {zero} the validation loss is {val0}, above $\\log {V} = {uniform}$. The running "
    "statistics are still their initial values, mean {m0} and variance {v0} for each of the {H} "
    "units, "
    "while the training set's `hprebn` has a mean variance of {var} per unit: the layer does not "
    "normalise yet. That is not why the loss is high, though: with statistics calibrated on the "
    "training set the step-zero loss is {calibrated}, nearly the same. The reason is that a random "
    "model is not a uniform guess. Its loss splits into {not_uniform}, the price of logits that "
    "are not all equal (the log-normaliser exceeds $\\log {V}$ by about half the logits' variance "
    "across classes, {half}), plus {on_targets}, the row's mean logit minus the target's logit, "
    "averaged over the windows: small, since nothing has been learned yet.",
    zero=given(0),
    m0=checked(float(np.max(np.abs(mean0))), against=0.0, shown_as=lambda v: "0"),
    v0=checked(float(np.max(var0)), against=float(np.min(var0)), shown_as=lambda v: f"{v:g}"),
    val0=validation(0, val0),
    V=given(VOCAB_SIZE),
    uniform=checked(float(np.log(VOCAB_SIZE)), against=float(-np.log(1 / VOCAB_SIZE)), rtol=1e-15,
                    shown_as=lambda v: f"{v:.4f}"),
    H=checked(mean0.shape[1], against=N_HIDDEN),
    var=checked(float(np.mean(calibrated0[1])),
                against=float(np.mean(np.var(params0["C"][splits.Xtr].reshape(len(splits.Xtr), -1)
                                              @ params0["W1"] + params0["b1"], axis=0, ddof=1))),
                rtol=1e-9, shown_as=lambda v: f"{v:.2f}"),
    calibrated=checked(val0_calibrated, against=float(
        np.mean(np.log(np.exp(logits_with_frozen_batchnorm(params0, splits.Xva, *calibrated0)).sum(axis=1))
                - logits_with_frozen_batchnorm(params0, splits.Xva, *calibrated0)[rows, splits.Yva])),
        rtol=1e-12, shown_as=lambda v: f"{v:.4f}"),
    # the two terms add up to the loss above log V
    not_uniform=checked(not_uniform, against=val0 - np.log(VOCAB_SIZE) - on_targets, rtol=1e-9,
                        shown_as=lambda v: f"{v:.4f}"),
    # second-order Taylor expansion of log-sum-exp around equal logits: a 10 % tolerance covers
    # the higher-order terms at this spread
    half=checked(half_variance, against=not_uniform, rtol=0.1, shown_as=lambda v: f"{v:.4f}"),
    on_targets=checked(on_targets, against=float(np.mean(Z, axis=1).mean() - Z[rows, splits.Yva].mean()),
                       rtol=1e-9, shown_as=lambda v: f"{v:.4f}"),
))
