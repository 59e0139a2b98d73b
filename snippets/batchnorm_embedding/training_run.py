"""Train the model with the hand-written backward pass only, and plot the loss."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from bookkit import md_table, svg_figure
from bookkit.mlp_by_hand import BATCH_SIZE, VOCAB_SIZE, make_splits, train_by_hand

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
print()
print(
    f"{run.steps} steps of plain SGD on minibatches of {BATCH_SIZE}, learning rate "
    f"{run.learning_rates[0]:g} and then {run.learning_rates[-1]:g} from step {decay_step}, seed "
    f"{run.seed}. Every gradient came from `backward_by_hand`; the engine was not called."
)
print()
shown = [(step, val) for step, val in run.checkpoints if step % 750 == 0]
print(md_table(
    ["step", f"mean minibatch loss (last {window} steps)", "validation loss"],
    [
        [str(step), f"{smoothed[step - window]:.4f}" if step >= window else "—", f"{val:.4f}"]
        for step, val in shown
    ],
    align=["right", "right", "right"],
))
print()
print(
    f"The validation loss is measured every {spacing} steps on all "
    f"{make_splits().Xva.shape[0]} validation windows, with the running "
    "BatchNorm statistics of that moment; the calibrated statistics come next."
)
