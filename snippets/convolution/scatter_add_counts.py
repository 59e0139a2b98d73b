"""im2col is a gather, so its VJP is a scatter-add: the number of adds landing on each input
position, from the engine, against the number of windows that cover it, counted by a loop."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from bookkit import checked, given, load_snippet_module, md_table, text

conv = load_snippet_module(Path(__file__).with_name("_convolution.py"))
length, width = 8, 3
x = np.random.default_rng(4).normal(size=length)


# --8<-- [start:count]
def adds_per_position(stride: int) -> np.ndarray:
    """Pull a cotangent of ones back through the gather: each copy of x_j adds one to x_j."""
    gather_vjp, windows = make_vjp(lambda a: conv.im2col(a, width, stride))(x)
    return gather_vjp(np.ones_like(windows))


# --8<-- [end:count]


def windows_covering(j: int, stride: int) -> int:
    starts = range(0, length - width + 1, stride)
    return sum(1 for start in starts if start <= j < start + width)


strides = (1, 2)
counts = {s: adds_per_position(s) for s in strides}
assert all(np.array_equal(c, np.round(c)) for c in counts.values())  # whole numbers of adds
counts = {s: c.astype(int) for s, c in counts.items()}
rows = [
    [given(j)] + [checked(int(counts[s][j]), against=windows_covering(j, s)) for s in strides]
    for j in range(length)
]
print(md_table(["input position $j$", "adds, stride one (engine)", "adds, stride two (engine)"], rows))
print()
print(
    text(
        "With $N = {N}$ and $K = {K}$, each column was compared with a count of the windows that "
        "cover $j$, made by a loop over the windows. The adds sum to the number of gathered "
        "entries: {total_one} at stride one, {total_two} at stride two. A position at the edge is "
        "covered by fewer windows, so it receives fewer contributions; at stride two, {unread} "
        "position at the end is read by no window and its gradient is zero, whatever the loss.",
        N=given(length),
        K=given(width),
        total_one=checked(int(counts[1].sum()), against=(length - width + 1) * width),
        total_two=checked(int(counts[2].sum()), against=conv.window_index(length, width, 2).size),
        unread=checked(
            int(np.count_nonzero(counts[2] == 0)),
            against=sum(1 for j in range(length) if windows_covering(j, 2) == 0),
        ),
    )
)
