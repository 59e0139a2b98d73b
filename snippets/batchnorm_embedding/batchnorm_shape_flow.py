"""BatchNorm's steps with their shapes: which go from (32, 64) to (1, 64) and back."""

from bookkit import checked, load_snippet_module, md_table, text

model = load_snippet_module("snippets/network_by_hand/_model.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
N_HIDDEN = model.N_HIDDEN
worked_example = worked.worked_example

example = worked_example()
cache, params = example.cache, example.params
steps = [
    ("bnmeani", "sum over the batch, divide by $n$", "copy to every row, divide by $n$"),
    ("bndiff", "broadcast `bnmeani` over rows", "`bndiff` itself; `bnmeani` sums over rows"),
    ("bndiff2", "square, elementwise", "times $2\\,$`bndiff`"),
    ("bnvar", "sum over the batch, divide by $n - 1$", "copy to every row, divide by $n - 1$"),
    ("bnvar_inv", "$(\\,\\cdot + \\epsilon)^{-1/2}$, elementwise",
     "times $-\\tfrac12(\\,\\cdot + \\epsilon)^{-3/2}$"),
    ("bnraw", "broadcast `bnvar_inv` over rows", "`bnvar_inv` sums over rows"),
    ("hpreact", "broadcast `bngain`, `bnbias` over rows", "`bngain`, `bnbias` sum over rows"),
]
n, width = example.batch_size, N_HIDDEN
STATISTICS = ("bnmeani", "bnvar", "bnvar_inv")       # one number per hidden unit
rows = []
for name, forward_note, backward_note in steps:
    expected = (1, width) if name in STATISTICS else (n, width)
    rows.append([f"`{name}`", checked(cache[name].shape, against=expected), forward_note, backward_note])
assert params["bngain"].shape == (1, width)
print(md_table(["tensor", "shape", "forward", "backward"], rows))
print()
print(text(
    "The input `hprebn` has shape {shape}: {n} examples, {width} hidden units. Every statistic "
    "is a {row} row, one number per hidden unit, and every one of them is broadcast back over "
    "the batch.",
    shape=checked(cache["hprebn"].shape, against=(n, width)),
    n=checked(cache["hprebn"].shape[0], against=len(example.Yb)),
    width=checked(cache["hprebn"].shape[1], against=params["W1"].shape[1]),
    row=checked(cache["bnmeani"].shape, against=params["bngain"].shape),
))
