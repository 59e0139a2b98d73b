"""The one-formula BatchNorm backward against the step-by-step one and against ad_core."""

import numpy as np

from bookkit import checked, load_snippet_module, md_table, text, yes_no
from bookkit.gradient_comparison import APPROX_ATOL, APPROX_RTOL, compare

by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
batchnorm_backward_fused = by_hand.batchnorm_backward_fused
worked_example = worked.worked_example

example = worked_example()
cache, params = example.cache, example.params
# --8<-- [start:call]
dhprebn_fused = batchnorm_backward_fused(
    example.hand["hpreact"], cache["bnraw"], cache["bnvar_inv"], params["bngain"]
)
# --8<-- [end:call]


def bits_differ(left: np.ndarray, right: np.ndarray) -> int:
    """Entries whose float64 bit patterns differ: counted on the bits, not with `!=`."""
    return int(np.count_nonzero(left.view(np.int64) != right.view(np.int64)))


rows = []
results = []
for label, other in [("step by step (by hand)", example.hand["hprebn"]),
                     ("`ad_core`", example.engine["hprebn"])]:
    c = compare("hprebn", dhprebn_fused, other)
    differing = int(np.count_nonzero(dhprebn_fused != other))
    results.append(c)
    close = bool(np.all(np.abs(dhprebn_fused - other) <= APPROX_ATOL + APPROX_RTOL * np.abs(other)))
    rows.append([
        label,
        checked(c.shapes_match, against=dhprebn_fused.shape == cache["hprebn"].shape,
                shown_as=lambda ok: "✓" if ok else "✗"),
        # a different route to the derivative: some entries round differently
        checked(c.exact, against=False, shown_as=yes_no),
        checked(c.approximate, against=close, shown_as=yes_no),
        text("{k} of {n}", k=checked(differing, against=bits_differ(dhprebn_fused, other)),
             n=checked(other.size, against=int(np.prod(cache["hprebn"].shape)))),
        checked(c.max_abs_diff, against=0.0, atol=APPROX_ATOL + APPROX_RTOL * c.scale,
                shown_as=lambda v: f"{v:.1e}"),
    ])
print(md_table(
    ["fused `dhprebn` against", "shape check", "exact", "approximate", "entries that differ",
     "max abs diff"],
    rows,
))
print()
largest = float(np.max(np.abs(dhprebn_fused)))
worst = max(c.max_abs_diff for c in results)
print(text(
    "The fused formula matches both to about {worst}, against entries as large as {largest}: "
    "the same derivative, reached through different roundings. So the step-by-step `dhprebn` "
    "agrees with `ad_core` bit for bit at this batch size (the comparison table above), while "
    "the one formula agrees with both only approximately, like the three-line cross-entropy "
    "gradient of the previous chapter.",
    worst=checked(worst, against=0.0, atol=APPROX_RTOL * largest, shown_as=lambda v: f"{v:.0e}"),
    largest=checked(largest, against=float(np.max(np.abs(example.engine["hprebn"]))), rtol=1e-9,
                    shown_as=lambda v: f"{v:.1e}"),
))
assert np.array_equal(example.hand["hprebn"], example.engine["hprebn"])
