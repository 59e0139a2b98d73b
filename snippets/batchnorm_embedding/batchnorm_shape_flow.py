"""BatchNorm's steps with their shapes: which go from (32, 64) to (1, 64) and back."""

from bookkit import fmt_shape, md_table
from bookkit.mlp_by_hand import worked_example

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
rows = []
for name, forward_note, backward_note in steps:
    rows.append([f"`{name}`", f"`{fmt_shape(cache[name].shape)}`", forward_note, backward_note])
n, width = cache["hprebn"].shape
assert cache["bnmeani"].shape == cache["bnvar"].shape == (1, width)
assert params["bngain"].shape == (1, width)
print(md_table(["tensor", "shape", "forward", "backward"], rows))
print()
print(
    f"The input `hprebn` has shape `{fmt_shape(cache['hprebn'].shape)}`: {n} examples, "
    f"{width} hidden units. Every statistic is a `(1, {width})` row, one number per hidden unit, "
    "and every one of them is broadcast back over the batch."
)
