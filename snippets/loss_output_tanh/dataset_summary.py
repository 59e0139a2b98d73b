"""Where the training names come from, and how many windows they make."""

import numpy as np

from bookkit import fmt_shape, md_table
from bookkit.mlp_by_hand import ALPHABET, BLOCK_SIZE, build_windows, load_names, make_splits

corpus = load_names()
splits = make_splits()

# --8<-- [start:windows]
X, Y = build_windows(["emma"])
# --8<-- [end:windows]

# Every character of a name, plus the closing ".", is one prediction.
assert X.shape == (len("emma") + 1, BLOCK_SIZE) and Y.shape == (len("emma") + 1,)
assert len(corpus.names) == corpus.male_count + corpus.female_count - corpus.in_both
assert sum(splits.name_counts) == len(corpus.names)
total_windows = sum(len(word) + 1 for word in corpus.names)
assert splits.Xtr.shape[0] + splits.Xva.shape[0] + splits.Xte.shape[0] == total_windows

print(
    f"The names come from the PyPI package `names` (version {corpus.package_version}), which "
    f"ships two US-census lists of first names inside the package: `dist.male.first` "
    f"({corpus.male_count} names) and `dist.female.first` ({corpus.female_count} names). "
    f"{corpus.in_both} names appear in both lists, so the book trains on "
    f"**{len(corpus.names)} distinct names**, lower-cased, read from the installed package with "
    f"`importlib.resources` (nothing is downloaded). Every name is over the alphabet "
    f"`{ALPHABET[1:]}`; the character `.` marks both ends, so the vocabulary has "
    f"{len(ALPHABET)} symbols."
)
print()
print(
    f"Each name gives one training window per character plus one for the closing `.`: "
    f"the contexts of `emma` have shape `{fmt_shape(X.shape)}`."
)
print()
rows = [
    ["".join(ALPHABET[i] for i in context), f"`{ALPHABET[target]}`"]
    for context, target in zip(X, Y, strict=True)
]
print(md_table(["context (3 characters)", "next character"], rows))
print()
parts = [("train", splits.Xtr), ("validation", splits.Xva), ("test", splits.Xte)]
print(
    md_table(
        ["split", "names", "windows `X`", "targets `Y`"],
        [
            [part, str(count), f"`{fmt_shape(Xs.shape)}`", f"`{fmt_shape((Xs.shape[0],))}`"]
            for (part, Xs), count in zip(parts, splits.name_counts, strict=True)
        ],
        align=["left", "right", "right", "right"],
    )
)
assert np.all(splits.Ytr < len(ALPHABET))
