"""BatchNorm's running statistics after one training step, and the train/eval mismatch as numbers."""

from pathlib import Path

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
B, H = 8, 3
M = norms.MOMENTUM
v = norms.random_inputs(np.random.default_rng(31), B, H)
x, gain, bias = v["x"] * 1.5 + 0.7, v["gain"], v["bias"]

# PyTorch's starting values: running mean zero, running variance one.
start_mean, start_var = np.zeros(H), np.ones(H)
running_mean, running_var = norms.running_update(start_mean, start_var, x)

# Independently: the two variances from their definitions, by loops over the batch.
mean_by_loop = np.array([sum(x[i, j] for i in range(B)) / B for j in range(H)])
squares = np.array([sum((x[i, j] - mean_by_loop[j]) ** 2 for i in range(B)) for j in range(H)])
rows = [
    [
        given(j),
        checked(x[:, j].mean(), against=mean_by_loop[j], rtol=1e-14),
        checked(running_mean[j], against=M * mean_by_loop[j], rtol=1e-14),
        checked(x[:, j].var(), against=squares[j] / B, rtol=1e-14),
        checked(x[:, j].var(ddof=1), against=squares[j] / (B - 1), rtol=1e-14),
        checked(running_var[j], against=(1 - M) * 1.0 + M * squares[j] / (B - 1), rtol=1e-14),
    ]
    for j in range(H)
]
print(md_table(["feature $j$", "batch mean", "`running_mean`", "batch variance ÷ $B$",
                "batch variance ÷ $(B - 1)$", "`running_var`"], rows))
print()
print(text(
    "One training step on a batch of {B} examples, from `running_mean` zero and `running_var` "
    "one, with momentum {m}. The running variance moves towards the variance divided by "
    "$B - 1$, while the training output was normalised with the one divided by $B$.",
    B=given(B), m=given(M),
))
print()


# --- The same input, two outputs. After k steps on the same batch the running statistics have a
# closed form, which checks the iterated update.
def after_steps(k: int) -> tuple[np.ndarray, np.ndarray]:
    rm, rv = start_mean, start_var
    for _ in range(k):
        rm, rv = norms.running_update(rm, rv, x)
    return rm, rv


train_out = norms.batchnorm_train(x, gain, bias)
batch_mean, unbiased = mean_by_loop, squares / (B - 1)
rows = []
for k in (1, 10, 100):
    rm, rv = after_steps(k)
    kept = (1 - M) ** k  # the weight the starting values still carry
    closed_mean, closed_var = (1 - kept) * batch_mean, kept * 1.0 + (1 - kept) * unbiased
    eval_out = norms.batchnorm_eval(x, gain, bias, rm, rv)
    closed_eval = gain * (x - closed_mean) / np.sqrt(closed_var + norms.EPS) + bias
    rows.append([
        given(k),
        checked(float(kept), against=float(np.exp(k * np.log1p(-M))), rtol=1e-12,
                shown_as=lambda s: f"{s:.2e}"),
        checked(float(np.max(np.abs(eval_out - train_out))),
                against=float(np.max(np.abs(closed_eval - train_out))), rtol=1e-9,
                shown_as=lambda s: f"{s:.4f}"),
    ])
# The limit: running statistics equal to this batch's mean and unbiased variance.
limit = norms.batchnorm_eval(x, gain, bias, batch_mean, unbiased)
ratio = (limit - bias) / (train_out - bias)
print(md_table(["training steps on this batch", "weight left on the starting values",
                "largest $\\lvert y_{\\text{train}} - y_{\\text{eval}} \\rvert$"], rows))
print()
print(text(
    "Even in the limit, when the running statistics are exactly this batch's mean and unbiased "
    "variance, the two outputs differ by up to {gap}: inference divides by the larger variance, "
    "so every normalised value shrinks by the factor {factor}, close to $\\sqrt{{(B-1)/B}} = "
    "{bessel}$ (the two differ only through $\\epsilon$).",
    gap=checked(float(np.max(np.abs(limit - train_out))),
                # the closed form: the same centred input, scaled by two different variances
                against=float(np.max(np.abs(gain * (x - batch_mean) * (
                    (unbiased + norms.EPS) ** -0.5 - (squares / B + norms.EPS) ** -0.5)))),
                rtol=1e-9,
                shown_as=lambda s: f"{s:.4f}"),
    factor=checked(float(np.median(ratio)), against=float(np.sqrt((B - 1) / B)), rtol=1e-4,
                   shown_as=lambda s: f"{s:.4f}"),
    bessel=checked(float(np.sqrt((B - 1) / B)), against=float(np.sqrt(1 - 1 / B)), rtol=1e-15,
                   shown_as=lambda s: f"{s:.4f}"),
))


# The size of that shrink for other batch sizes: 1 - sqrt((B-1)/B) is close to 1/(2B).
def shrink(batch: int) -> float:
    return 1.0 - float(np.sqrt((batch - 1) / batch))


def percent(value: float) -> str:
    return f"{100 * value:.1f}%"


larger = (32, 256)
print()
print(text(
    "That shrink, $1 - \\sqrt{{(B-1)/B}} \\approx 1/(2B)$, is {here} at $B = {B}$, {mid} at "
    "$B = {b_mid}$ and {big} at $B = {b_big}$.",
    here=checked(shrink(B), against=1 / (2 * B), rtol=0.05, shown_as=percent),
    B=given(B),
    mid=checked(shrink(larger[0]), against=1 / (2 * larger[0]), rtol=0.05, shown_as=percent),
    b_mid=given(larger[0]),
    big=checked(shrink(larger[1]), against=1 / (2 * larger[1]), rtol=0.05, shown_as=percent),
    b_big=given(larger[1]),
))
