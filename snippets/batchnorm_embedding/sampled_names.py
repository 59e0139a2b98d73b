"""Names drawn from the model trained with hand-written gradients."""

import importlib.resources

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
print(", ".join(f"`{s}`" for s in samples))
print()
print(text(
    "{k} of the {n} samples are real names from the census lists{which}; the others are new "
    "strings, some name-like, some not: a small model after a short run. Each sample is drawn one "
    "character at a time from the softmax, with the calibrated BatchNorm statistics and a seeded "
    "generator.",
    # counted against the census files themselves, not the book's corpus
    k=checked(len(in_corpus), against=sum(s in census for s in samples)),
    n=given(COUNT),
    which=f" ({', '.join(f'`{s}`' for s in in_corpus)})" if in_corpus else "",
))
