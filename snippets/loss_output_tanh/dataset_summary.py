"""Where the training names come from, and how many windows they make."""

import importlib.resources
import string

import names
import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

names_data = load_snippet_module("snippets/network_by_hand/_names_data.py")
model = load_snippet_module("snippets/network_by_hand/_model.py")
build_windows = names_data.build_windows
load_names = names_data.load_names
make_splits = names_data.make_splits
ALPHABET, BLOCK_SIZE = model.ALPHABET, model.BLOCK_SIZE

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



def last_rank(file_name: str) -> int:
    """The rank column of a census list's last line: how many names the list has, counted by
    the Census Bureau rather than by this book's reader."""
    lines = importlib.resources.files("names").joinpath(file_name).read_text(encoding="ascii").splitlines()
    return int([line for line in lines if line.strip()][-1].split()[-1])


male = checked(corpus.male_count, against=last_rank("dist.male.first"))
female = checked(corpus.female_count, against=last_rank("dist.female.first"))
print(text(
    "The names come from the PyPI package `names` (version {version}), which ships two "
    "US-census lists of first names inside the package: `dist.male.first` ({male} names) and "
    "`dist.female.first` ({female} names). {both} names appear in both lists, so the book trains "
    "on **{unique} distinct names**, lower-cased, read from the installed package with "
    "`importlib.resources` (nothing is downloaded). Every name is over the alphabet "
    "`{alphabet}`; the character `.` marks both ends, so the vocabulary has {vocab} symbols.",
    version=checked(corpus.package_version, against=names.__version__),
    male=male,
    female=female,
    both=checked(corpus.in_both, against=corpus.male_count + corpus.female_count - len(corpus.names)),
    unique=checked(len(corpus.names), against=len({n.lower() for n in corpus.names})),
    alphabet=ALPHABET[1:],
    vocab=checked(len(ALPHABET), against=1 + len(string.ascii_lowercase)),
))
print()
print(text(
    "Each name gives one training window per character plus one for the closing `.`: the "
    "contexts of `emma` have shape {shape}.",
    shape=checked(X.shape, against=(len("emma") + 1, BLOCK_SIZE)),
))
print()
rows = [
    ["".join(ALPHABET[i] for i in context), f"`{ALPHABET[target]}`"]
    for context, target in zip(X, Y, strict=True)
]
print(md_table([text("context ({k} characters)", k=given(BLOCK_SIZE)), "next character"], rows))
print()
parts = [("train", splits.Xtr, splits.Ytr), ("validation", splits.Xva, splits.Yva),
         ("test", splits.Xte, splits.Yte)]
print(
    md_table(
        ["split", "names", "windows `X`", "targets `Y`"],
        [
            # every name ends with exactly one window whose target is the closing "."
            [part, checked(count, against=int(np.count_nonzero(Ys == 0)), shown_as=str),
             checked(Xs.shape, against=(Ys.shape[0], BLOCK_SIZE)),
             checked(Ys.shape, against=(int(np.count_nonzero(Ys == 0) + np.count_nonzero(Ys)),))]
            for (part, Xs, Ys), count in zip(parts, splits.name_counts, strict=True)
        ],
        align=["left", "right", "right", "right"],
    )
)
assert np.all(splits.Ytr < len(ALPHABET))
