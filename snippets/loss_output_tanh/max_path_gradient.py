"""The path through the row maximum: its gradient is tiny but it is there, and it must be added."""

import numpy as np

from bookkit import fmt_shape
from bookkit.mlp_by_hand import worked_example

example = worked_example()
dnorm = example.hand["norm_logits"]
dmax = example.hand["logit_maxes"]
logits = example.cache["logits"]

# In exact arithmetic each row of dnorm_logits sums to zero, so the max path contributes 0.
row_sums = dnorm.sum(axis=1)
largest_row_sum = float(np.max(np.abs(row_sums)))
largest_entry = float(np.max(np.abs(dnorm)))
assert largest_row_sum < 1e-15 * dnorm.shape[1] and largest_entry > 1e-3
assert np.array_equal(dmax[:, 0], -row_sums)
# The logits are random: no row has a tie for its maximum, so argmax names one winner.
sorted_rows = np.sort(logits, axis=1)
smallest_gap = float(np.min(sorted_rows[:, -1] - sorted_rows[:, -2]))
assert smallest_gap > 1e-6
nonzero = int(np.count_nonzero(dmax))

print(
    f"`dlogit_maxes` has shape `{fmt_shape(dmax.shape)}`. Its largest entry in absolute value is "
    f"{float(np.max(np.abs(dmax))):.1e}, against {largest_entry:.1e} for the largest entry of "
    f"`dnorm_logits`: {nonzero} of its {dmax.size} entries are rounding noise rather than exact "
    f"zeros. The smallest gap between a row's largest and second-largest logit is "
    f"{smallest_gap:.2e}, so every row has a single maximum and the `argmax` scatter is well "
    "defined."
)
