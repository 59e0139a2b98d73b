"""Self-test for "BatchNorm, input layer and embedding, by hand": every answer is computed here."""

import numpy as np

from bookkit import checked, collapsible, given, load_snippet_module, observed, text
from bookkit.gradient_comparison import compare

names_data = load_snippet_module("snippets/network_by_hand/_names_data.py")
model = load_snippet_module("snippets/network_by_hand/_model.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
make_splits = names_data.make_splits
ALPHABET, BATCH_SIZE, BN_EPS, forward = model.ALPHABET, model.BATCH_SIZE, model.BN_EPS, model.forward
worked_example = worked.worked_example

example = worked_example()
hand, engine, cache = example.hand, example.engine, example.cache
n = example.Xb.shape[0]


def title(number: int, words: str, **fields) -> str:
    return text("Exercise {k}. " + words, k=given(number), **fields)


# 1. The mismatch between a Bessel-corrected forward and a biased backward.
dbndiff2_biased = np.ones_like(cache["bndiff2"]) * hand["bnvar"] * (1.0 / n)
biased = compare("bndiff2", dbndiff2_biased, engine["bndiff2"])
correct = compare("bndiff2", hand["bndiff2"], engine["bndiff2"])
ratio = float(np.median(dbndiff2_biased / hand["bndiff2"]))
assert correct.approximate and not biased.approximate
print(collapsible(
    title(1, "The forward pass divides the variance by $n - 1$ (Bessel's correction). Suppose the "
             "backward pass divides by $n$ instead. Which comparison fails first, and by how much?"),
    text(
        "`dbndiff2`, the first gradient computed after `dbnvar`. Every entry is off by the factor "
        "$(n-1)/n = {ratio}$ for $n = {n}$, a relative error of {error}: far above rounding, so it "
        "fails the closeness test (max abs diff {diff}). The backward pass must divide by whatever "
        "the forward pass divided by.",
        ratio=checked(ratio, against=(n - 1) / n, rtol=1e-12, shown_as=lambda v: f"{v:.6f}"),
        n=given(n),
        error=checked(1 - ratio, against=1 / n, rtol=1e-9, shown_as=lambda v: f"{v:.1%}"),
        # the wrong line is the right one times (n - 1)/n, so it is off by the right one / n
        diff=checked(biased.max_abs_diff, against=float(np.max(np.abs(hand["bndiff2"]))) / n, rtol=1e-9,
                     shown_as=lambda v: f"{v:.1e}"),
    ),
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
# With n in place of n - 1: bndiff is zero, so every unit's output is its bias, whatever the input.
one = example.params["C"][single[0]].reshape(1, -1) @ example.params["W1"] + example.params["b1"]
normalised = (one - one.mean(0)) * (one.var(0) + BN_EPS) ** -0.5
assert np.all(normalised == 0.0)
print(collapsible(
    title(2, "Why can't you sample names with the training-mode forward pass?"),
    text(
        "In training mode the statistics come from the batch. With one context, `bndiff` is zero "
        "everywhere and the Bessel-corrected variance divides by $n - 1 = 0$: the forward pass on "
        "a batch of one stops with\n\n",
    )
    + observed(failure)
    + text(
        "\nEven with $n$ in place of $n - 1$, every hidden unit would be normalised to zero and "
        "the prediction would not depend on the input. That is why the [calibration step]"
        "(batchnorm-embedding.md#calibrating-batchnorm-after-training) freezes the statistics.",
    ),
))
print()

# 3. How often does the start character's row receive a contribution?
start = ALPHABET.index(".")
uses = int(np.count_nonzero(example.Xb == start))
by_sum = hand["emb"][example.Xb == start].sum(axis=0)
others = np.bincount(example.Xb.ravel(), minlength=len(ALPHABET))
assert uses > 2 * np.max(np.delete(others, start))          # "by far the most used"
print(collapsible(
    title(3, "How many contributions does row `.` of `dC` receive in the chapter's minibatch, and "
             "what is it equal to?"),
    text(
        "{uses}: the start-of-name character fills the contexts that begin a name, so it is by "
        "far the most used. Row `.` of `dC` equals the sum of the {uses} rows of `demb` whose "
        "context character is `.`: {row}.",
        uses=checked(uses, against=int(others[start])),
        row=checked(hand["C"][start], against=by_sum, rtol=1e-12, atol=1e-15),
    ),
))
print()

# 4. Rows of dC for characters absent from the batch.
absent = np.setdiff1d(np.arange(len(ALPHABET)), example.Xb)
assert np.all(hand["C"][absent] == 0.0) and np.all(engine["C"][absent] == 0.0)
print(collapsible(
    title(4, "Which rows of `dC` are exactly zero, and does plain SGD change them?"),
    text(
        "The {k} rows of characters that do not occur in the minibatch's contexts ({chars}). "
        "Their embeddings did not influence the loss, so the gradient is zero and SGD leaves "
        "them unchanged on this step.",
        k=checked(len(absent), against=int(np.sum(np.all(engine["C"] == 0.0, axis=1)))),
        chars=", ".join(f"`{ALPHABET[i]}`" for i in absent),
    ),
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


def hidden_row0(X: np.ndarray) -> np.ndarray:
    """h[0] computed another way: the batch statistics with NumPy's mean and var(ddof=1)."""
    p = example.params
    pre = p["C"][X].reshape(len(X), -1) @ p["W1"] + p["b1"]
    return np.tanh(p["bngain"] * (pre - pre.mean(0)) / np.sqrt(pre.var(0, ddof=1) + BN_EPS) + p["bnbias"])[0]


assert same_hidden and moved > 0
print(collapsible(
    title(5, "In training mode, does the first example's hidden activation `h[0]` depend on the "
             "last, example {last}?",
          last=given(BATCH_SIZE - 1)),
    text(
        "Yes, on its *input*: the batch mean and variance use all rows, so changing the last "
        "context moves `h[0]` by up to {moved}. Not on its *label*: changing the last target "
        "leaves `h[0]` bit-for-bit equal, because labels enter only at the loss. The backward "
        "pass mirrors this: `dhprebn` for one row has terms summed over all rows of the batch, "
        "the $\\sum_k$ in the one-line formula.",
        moved=checked(moved, against=float(np.max(np.abs(hidden_row0(changed_X) - hidden_row0(Xb)))),
                      rtol=1e-6, shown_as=lambda v: f"{v:.1e}"),
    ),
))
