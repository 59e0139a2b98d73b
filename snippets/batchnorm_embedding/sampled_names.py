"""Names drawn from the model trained with hand-written gradients."""

import importlib.resources
import itertools

import numpy as np

from bookkit import checked, given, load_snippet_module, text

names_data = load_snippet_module("snippets/network_by_hand/_names_data.py")
model = load_snippet_module("snippets/network_by_hand/_model.py")
training = load_snippet_module("snippets/network_by_hand/_training.py")
load_names, make_splits = names_data.load_names, names_data.make_splits
ALPHABET = model.ALPHABET
calibrate_batchnorm = training.calibrate_batchnorm
sample_names = training.sample_names
train_by_hand = training.train_by_hand

COUNT = 20
run = train_by_hand()
bnmean, bnvar = calibrate_batchnorm(run.params, make_splits().Xtr)
samples = sample_names(run.params, bnmean, bnvar, count=COUNT, seed=11)
known = set(load_names().names)
census = {
    line.split()[0].lower()
    for name in ("dist.male.first", "dist.female.first")
    for line in importlib.resources.files("names").joinpath(name).read_text().splitlines()
    if line.strip()
}
assert len(samples) == COUNT and all(set(s) <= set(ALPHABET[1:]) for s in samples)
in_corpus = [s for s in samples if s in known]
splits = make_splits()
val_loss = training.evaluate_loss(run.params, splits.Xva, splits.Yva, bnmean, bnvar)


def bigram_loss(train_X, train_Y, eval_X, eval_Y):
    """A yardstick: the validation loss of a character-bigram model (add-one counts of which
    character follows which in the training windows), scored on the same validation windows."""
    counts = np.ones((len(ALPHABET), len(ALPHABET)))
    np.add.at(counts, (train_X[:, -1], train_Y), 1)
    logp = np.log(counts / counts.sum(axis=1, keepdims=True))
    return float(-np.mean(logp[eval_X[:, -1], eval_Y]))


def bigram_loss_by_loops(train_names, eval_X, eval_Y):
    """The same number counted from the training names with plain dictionaries, for the check."""
    pairs = {}
    for name in train_names:
        word = "." + name + "."
        for a, b in itertools.pairwise(word):
            pairs[a, b] = pairs.get((a, b), 0) + 1
    total = {a: sum(pairs.get((a, b), 0) + 1 for b in ALPHABET) for a in ALPHABET}
    return float(np.mean([-np.log((pairs.get((ALPHABET[x[-1]], ALPHABET[y]), 0) + 1) / total[ALPHABET[x[-1]]])
                          for x, y in zip(eval_X, eval_Y, strict=True)]))


# the training names, split again as make_splits does (seeded shuffle, the first 80 %)
words = list(load_names().names)
order = np.random.default_rng(42).permutation(len(words))
train_names = [words[i] for i in order[: int(0.8 * len(words))]]
bigram = bigram_loss(splits.Xtr, splits.Ytr, splits.Xva, splits.Yva)


def triples_of(name):
    word = ".." + name + "."
    return [word[i : i + 3] for i in range(len(word) - 2)]


seen = {t for name in train_names for t in triples_of(name)}
# the same set read off the training windows: the last two context characters and the next one
seen_by_windows = {ALPHABET[a] + ALPHABET[b] + ALPHABET[c] for (a, b), c in zip(splits.Xtr[:, 1:], splits.Ytr,
                                                                                    strict=True)}
assert seen == seen_by_windows


def made_of_seen_triples(name):
    return all(t in seen for t in triples_of(name))


assert val_loss < bigram - 0.2  # the trained network beats the yardstick clearly
print(", ".join(f"`{s}`" for s in samples))
print()
print(text(
    "These are drawn after the training run above, whose validation loss is {val} (calibrated "
    "BatchNorm statistics), against {bigram} for a character-bigram model counted on the same "
    "training names and {uniform} for a uniform guess. {triples} of the {n} samples are built only from "
    "letter triples that occur in the training names (the start and end marks included), and "
    "{k} are real names from the census lists{which}: the model writes new names rather than "
    "recalling old ones. A three-character context is all it sees, so a long sample is a chain of "
    "plausible triples rather than a plan. Each sample is drawn one character at a time from the "
    "softmax, with the calibrated BatchNorm statistics and a seeded generator.",
    val=checked(val_loss, rtol=1e-12,
                against=training.evaluate_loss_atomic(run.params, splits.Xva, splits.Yva, bnmean, bnvar),
                shown_as=lambda v: f"{v:.4f}"),
    bigram=checked(bigram, against=bigram_loss_by_loops(train_names, splits.Xva, splits.Yva), rtol=1e-12,
                   shown_as=lambda v: f"{v:.4f}"),
    uniform=checked(float(np.log(len(ALPHABET))), against=float(-np.log(1 / 27)), rtol=1e-15,
                    shown_as=lambda v: f"{v:.4f}"),
    triples=checked(sum(made_of_seen_triples(s) for s in samples),
                    against=sum(all(t in seen_by_windows for t in triples_of(s)) for s in samples)),
    # counted against the census files themselves, not the book's corpus
    k=checked(len(in_corpus), against=sum(s in census for s in samples)),
    n=given(COUNT),
    which=f" ({', '.join(f'`{s}`' for s in in_corpus)})" if in_corpus else "",
))
