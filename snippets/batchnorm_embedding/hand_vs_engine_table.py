"""Hand-written gradients from hpreact down to the embedding table against ad_core's."""

from bookkit import md_table
from bookkit.mlp_by_hand import (
    APPROX_ATOL,
    APPROX_RTOL,
    HPREACT_TO_INPUT,
    compare,
    comparison_rows,
    worked_example,
)

example = worked_example()
comparisons = [compare(name, example.hand[name], example.engine[name]) for name in HPREACT_TO_INPUT]
assert all(c.shapes_match for c in comparisons)
assert all(c.approximate for c in comparisons)
exact = [c.name for c in comparisons if c.exact]
approximate_only = [c.name for c in comparisons if not c.exact]
print(
    md_table(
        ["gradient", "shape", "shape check", "exact", "approximate", "max abs diff"],
        comparison_rows(comparisons),
        align=["left", "right", "center", "center", "center", "right"],
    )
)
print()


def code_list(names: list[str]) -> str:
    return ", ".join(f"`d{name}`" for name in names) if names else "none"


print(
    f"All {len(comparisons)} gradients have the right shape and agree with `ad_core` to "
    f"`rtol={APPROX_RTOL:g}, atol={APPROX_ATOL:g}`. Bit for bit equal: {len(exact)} "
    f"({code_list(exact)}). Equal only approximately: {len(approximate_only)} "
    f"({code_list(approximate_only)})."
)
