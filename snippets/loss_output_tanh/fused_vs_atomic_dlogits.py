"""The three-line dlogits against the atomic chain: close, but not bit for bit."""

import numpy as np

from bookkit import md_table
from bookkit.mlp_by_hand import compare, cross_entropy_backward_fused, worked_example

example = worked_example()
fused = cross_entropy_backward_fused(example.cache["logits"], example.Yb)
atomic = example.hand["logits"]
engine = example.engine["logits"]

against_atomic = compare("logits", fused, atomic)
against_engine = compare("logits", fused, engine)
differing = int(np.count_nonzero(fused != atomic))
row_sums = np.abs(fused.sum(axis=1))
assert against_atomic.shapes_match and against_atomic.approximate
assert against_engine.approximate
assert differing > 0 and not against_atomic.exact
assert float(row_sums.max()) < 1e-16

print(
    md_table(
        ["fused `dlogits` against", "exact", "approximate", "entries that differ", "max abs diff"],
        [
            ["atomic chain (by hand)", "yes" if against_atomic.exact else "no",
             "yes" if against_atomic.approximate else "no",
             f"{differing} of {fused.size}", f"{against_atomic.max_abs_diff:.1e}"],
            ["`ad_core`", "yes" if against_engine.exact else "no",
             "yes" if against_engine.approximate else "no",
             f"{int(np.count_nonzero(fused != engine))} of {fused.size}",
             f"{against_engine.max_abs_diff:.1e}"],
        ],
    )
)
print()
print(
    f"The largest row sum of the fused gradient is {float(row_sums.max()):.1e}: zero up to "
    "rounding, as the derivation promises."
)
