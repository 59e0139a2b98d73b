"""Hand-written gradients of every tensor from logprobs to hpreact against ad_core's."""

from bookkit.mlp_by_hand import (
    LOSS_TO_HPREACT,
    compare,
    comparison_summary,
    comparison_table,
    worked_example,
)

example = worked_example()
# --8<-- [start:compare]
comparisons = [compare(name, example.hand[name], example.engine[name]) for name in LOSS_TO_HPREACT]
# --8<-- [end:compare]

assert all(c.shapes_match for c in comparisons)
assert all(c.approximate for c in comparisons)
print(comparison_table(comparisons))
print()
print(comparison_summary(comparisons))
