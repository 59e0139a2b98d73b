"""Hand-written gradients of every tensor from logprobs to hpreact against ad_core's."""

from bookkit import md_table
from bookkit.mlp_by_hand import (
    APPROX_ATOL,
    APPROX_RTOL,
    LOSS_TO_HPREACT,
    compare,
    comparison_rows,
    worked_example,
)

example = worked_example()
# --8<-- [start:compare]
comparisons = [compare(name, example.hand[name], example.engine[name]) for name in LOSS_TO_HPREACT]
# --8<-- [end:compare]

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
    f"All {len(comparisons)} gradients have the right shape and agree to "
    f"`rtol={APPROX_RTOL:g}, atol={APPROX_ATOL:g}`. "
    f"Bit for bit equal: {len(exact)} ({code_list(exact)}). "
    f"Equal only approximately: {len(approximate_only)} ({code_list(approximate_only)})."
)
