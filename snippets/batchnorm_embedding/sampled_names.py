"""Names drawn from the model trained with hand-written gradients."""

from bookkit.mlp_by_hand import (
    ALPHABET,
    calibrate_batchnorm,
    load_names,
    make_splits,
    sample_names,
    train_by_hand,
)

run = train_by_hand()
bnmean, bnvar = calibrate_batchnorm(run.params, make_splits().Xtr)
samples = sample_names(run.params, bnmean, bnvar, count=20, seed=11)
known = set(load_names().names)
assert len(samples) == 20 and all(set(s) <= set(ALPHABET[1:]) for s in samples)
in_corpus = [s for s in samples if s in known]
print(", ".join(f"`{s}`" for s in samples))
print()
print(
    f"{len(in_corpus)} of the {len(samples)} samples are real names from the census lists"
    + (f" ({', '.join(f'`{s}`' for s in in_corpus)})" if in_corpus else "")
    + "; the others are new strings, some name-like, some not: a small model after a short "
    "run. Each sample is drawn one character at a time from the softmax, with the calibrated "
    "BatchNorm statistics and a seeded generator."
)
