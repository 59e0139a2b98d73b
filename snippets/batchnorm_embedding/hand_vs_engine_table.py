"""Hand-written gradients from hpreact down to the embedding table against ad_core's."""

from bookkit.mlp_by_hand import (
    HPREACT_TO_INPUT,
    compare,
    comparison_summary,
    comparison_table,
    worked_example,
)

example = worked_example()
comparisons = [compare(name, example.hand[name], example.engine[name]) for name in HPREACT_TO_INPUT]
assert all(c.shapes_match for c in comparisons)
assert all(c.approximate for c in comparisons)
print(comparison_table(comparisons))
print()
print(comparison_summary(comparisons, engine="ad_core"))
