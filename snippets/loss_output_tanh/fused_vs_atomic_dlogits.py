"""The three-line dlogits against the atomic chain: close, but not bit for bit."""

import numpy as np

from bookkit import checked, load_snippet_module, md_table, text, yes_no
from bookkit.gradient_comparison import APPROX_ATOL, APPROX_RTOL, compare

by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
cross_entropy_backward_fused = by_hand.cross_entropy_backward_fused
worked_example = worked.worked_example

example = worked_example()
fused = cross_entropy_backward_fused(example.cache["logits"], example.Yb)
atomic = example.hand["logits"]
engine = example.engine["logits"]
B, V = fused.shape
EPS = np.finfo(float).eps


def bits_differ(left: np.ndarray, right: np.ndarray) -> int:
    """Entries whose float64 bit patterns differ: counted on the bits, not with `!=`."""
    return int(np.count_nonzero(left.view(np.int64) != right.view(np.int64)))


rows = []
for label, other in [("atomic chain (by hand)", atomic), ("`ad_core`", engine)]:
    c = compare("logits", fused, other)
    differing = int(np.count_nonzero(fused != other))
    rows.append([
        label,
        # a different route to the derivative: at least one entry rounds differently
        checked(c.exact, against=False, shown_as=yes_no),
        checked(c.approximate,
                against=bool(np.all(np.abs(fused - other) <= APPROX_ATOL + APPROX_RTOL * np.abs(other))),
                shown_as=yes_no),
        text("{k} of {n}", k=checked(differing, against=bits_differ(fused, other)),
             n=checked(fused.size, against=B * V)),
        checked(c.max_abs_diff, against=0.0, atol=APPROX_ATOL + APPROX_RTOL * c.scale,
                shown_as=lambda v: f"{v:.1e}"),
    ])
print(md_table(
    ["fused `dlogits` against", "exact", "approximate", "entries that differ", "max abs diff"], rows
))
print()
row_sums = np.abs(fused.sum(axis=1))
print(text(
    "The largest row sum of the fused gradient is {largest}: zero up to rounding, as the "
    "derivation promises.",
    largest=checked(float(row_sums.max()), against=0.0, atol=V * EPS * float(np.max(np.abs(fused))),
                    shown_as=lambda v: f"{v:.1e}"),
))
