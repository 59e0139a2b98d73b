"""The one-formula BatchNorm backward against the step-by-step one and against ad_core."""

import numpy as np

from bookkit import md_table
from bookkit.mlp_by_hand import batchnorm_backward_fused, compare, worked_example

example = worked_example()
cache, params = example.cache, example.params
# --8<-- [start:call]
dhprebn_fused = batchnorm_backward_fused(
    example.hand["hpreact"], cache["bnraw"], cache["bnvar_inv"], params["bngain"]
)
# --8<-- [end:call]
rows = []
results = {}
for label, other in [("step by step (by hand)", example.hand["hprebn"]),
                     ("`ad_core`", example.engine["hprebn"])]:
    c = compare("hprebn", dhprebn_fused, other)
    differing = int(np.count_nonzero(dhprebn_fused != other))
    results[label] = (c, differing)
    rows.append([label, "✓" if c.shapes_match else "✗", "yes" if c.exact else "no",
                 "yes" if c.approximate else "**no**", f"{differing} of {other.size}",
                 f"{c.max_abs_diff:.1e}"])
assert all(c.approximate and c.shapes_match for c, _ in results.values())
print(md_table(
    ["fused `dhprebn` against", "shape check", "exact", "approximate", "entries that differ",
     "max abs diff"],
    rows,
))
print()
largest = float(np.max(np.abs(dhprebn_fused)))
print(
    f"The fused formula matches both to about {max(c.max_abs_diff for c, _ in results.values()):.0e}, "
    f"against entries as large as {largest:.1e}: the same derivative, reached through different "
    "roundings."
)
print()
step_exact = bool(np.array_equal(example.hand["hprebn"], example.engine["hprebn"]))
fused_exact = any(c.exact for c, _ in results.values())
assert not fused_exact
print(
    "So the step-by-step `dhprebn` agrees with `ad_core` "
    + ("bit for bit" if step_exact else "only approximately")
    + ", while the one formula agrees with both only approximately, like the three-line "
    "cross-entropy gradient of the previous chapter."
)
