"""Self-test for chapter 14: every worked answer is computed and asserted here."""

import numpy as np

from bookkit import collapsible, fmt_array
from bookkit.mlp_by_hand import (
    ALPHABET,
    BATCH_SIZE,
    compare,
    forward,
    make_splits,
    worked_example,
)

example = worked_example()
hand, engine, cache = example.hand, example.engine, example.cache
n = example.Xb.shape[0]

# 1. The mismatch between a Bessel-corrected forward and a biased backward.
dbndiff2_biased = np.ones_like(cache["bndiff2"]) * hand["bnvar"] * (1.0 / n)
biased = compare("bndiff2", dbndiff2_biased, engine["bndiff2"])
correct = compare("bndiff2", hand["bndiff2"], engine["bndiff2"])
ratio = float(np.median(dbndiff2_biased / hand["bndiff2"]))
assert correct.approximate and not biased.approximate
assert abs(ratio - (n - 1) / n) < 1e-12
print(collapsible(
    "Exercise 1. The forward pass divides the variance by $n - 1$ (Bessel's correction). "
    "Suppose the backward pass divides by $n$ instead. Which comparison fails first, and by "
    "how much?",
    "`dbndiff2`, the first gradient computed after `dbnvar`. Every entry is off by the factor "
    f"$(n-1)/n = {ratio:.6f}$ for $n = {n}$, a relative error of {1 - ratio:.1%}: far above "
    "rounding, so it fails the closeness test "
    f"(max abs diff {biased.max_abs_diff:.1e}). The backward pass must divide by whatever the "
    "forward pass divided by.",
))
print()

# 2. Training-mode BatchNorm on a single example.
single = example.Xb[:1], example.Yb[:1]
try:
    forward(example.params, *single)
except ZeroDivisionError as error:
    failure = f"{type(error).__name__}: {error}"
else:
    raise AssertionError("a batch of one should make the Bessel-corrected variance divide by 0")
print(collapsible(
    "Exercise 2. Why can't you sample names with the training-mode forward pass?",
    "In training mode the statistics come from the batch. With one context, `bndiff` is zero "
    "everywhere and the Bessel-corrected variance divides by $n - 1 = 0$: the forward pass on a "
    f"batch of one stops with `{failure}`. Even with $n$ in place of $n - 1$, every hidden unit "
    "would be normalised to zero and the prediction would not depend on the input. That is why "
    "the [calibration step](batchnorm-embedding.md#calibrating-batchnorm-after-training) "
    "freezes the statistics.",
))
print()

# 3. How often does the start character's row receive a contribution?
start = ALPHABET.index(".")
uses = int(np.count_nonzero(example.Xb == start))
by_sum = hand["emb"][example.Xb == start].sum(axis=0)
assert np.allclose(hand["C"][start], by_sum, rtol=1e-12, atol=1e-15)
print(collapsible(
    "Exercise 3. How many contributions does row `.` of `dC` receive in the chapter's "
    "minibatch, and what is it equal to?",
    f"{uses}: the start-of-name character fills every context that begins a name, so it is by "
    f"far the most used. Row `.` of `dC` equals the sum of the {uses} rows of `demb` whose "
    f"context character is `.` (asserted): `{' '.join(fmt_array(hand['C'][start]).split())}`.",
))
print()

# 4. Rows of dC for characters absent from the batch.
absent = np.setdiff1d(np.arange(len(ALPHABET)), example.Xb)
assert np.all(hand["C"][absent] == 0.0)
print(collapsible(
    "Exercise 4. Which rows of `dC` are exactly zero, and does plain SGD change them?",
    f"The {len(absent)} rows of characters that do not occur in the minibatch's contexts "
    f"({', '.join(f'`{ALPHABET[i]}`' for i in absent)}). Their embeddings did not influence the "
    "loss, so the gradient is zero and SGD leaves them unchanged on this step.",
))
print()

# 5. Batch-size dependence of BatchNorm's gradient.
splits = make_splits()
index = np.random.default_rng(3).integers(0, splits.Xtr.shape[0], size=BATCH_SIZE)
Xb, Yb = splits.Xtr[index], splits.Ytr[index]
base = forward(example.params, Xb, Yb)
changed_Y = Yb.copy()
changed_Y[-1] = (Yb[-1] + 1) % len(ALPHABET)
other = forward(example.params, Xb, changed_Y)
same_hidden = np.array_equal(base["h"][0], other["h"][0])
changed_X = Xb.copy()
changed_X[-1] = (Xb[-1] + 1) % len(ALPHABET)
moved = float(np.max(np.abs(forward(example.params, changed_X, Yb)["h"][0] - base["h"][0])))
assert same_hidden and moved > 0
print(collapsible(
    "Exercise 5. In training mode, does example 0's hidden activation depend on example 31?",
    "Yes, on its *input*: the batch mean and variance use all rows, so changing the last "
    f"context moves `h[0]` by up to {moved:.1e}. Not on its *label*: changing the last target leaves "
    "`h[0]` bit-for-bit equal, because labels enter only at the "
    "loss. The backward pass mirrors this: `dhprebn` for one row has terms summed over all rows "
    "of the batch, the $\\sum_k$ in the one-line formula.",
))
