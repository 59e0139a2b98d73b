"""Delete the `+=` where the two paths into `counts` meet: which comparison fails first?"""

import numpy as np

from bookkit import md_table
from bookkit.mlp_by_hand import (
    LOSS_TO_HPREACT,
    PARAM_NAMES,
    backward_hpreact_to_input,
    backward_loss_to_hpreact,
    compare,
    worked_example,
)

example = worked_example()


def first_failure(variant: str) -> tuple[str | None, list[str]]:
    hand = backward_loss_to_hpreact(example.params, example.cache, example.Yb, variant)
    failing = [
        name for name in LOSS_TO_HPREACT
        if not compare(name, hand[name], example.engine[name]).approximate
    ]
    return (failing[0] if failing else None), failing


correct_first, _ = first_failure("+=")
assert correct_first is None
rows = []
results = {}
for variant, description in [
    ("drop", "line deleted: only the direct path $r \\odot dP$"),
    ("=", "`+=` written as `=`: only the path through $s$"),
]:
    first, failing = first_failure(variant)
    results[variant] = (first, failing)
    still_right = [n for n in LOSS_TO_HPREACT[: LOSS_TO_HPREACT.index(first)]]
    rows.append([
        description,
        f"`d{first}`",
        ", ".join(f"`d{n}`" for n in still_right),
        str(len(failing)),
    ])
# Both broken versions fail at the same tensor: the one that receives both paths.
assert results["drop"][0] == results["="][0] == "counts"
print(
    md_table(
        ["version of the line", "first failing comparison", "still correct before it", "failing"],
        rows,
    )
)
print()
print(
    f"Walking the table from the loss backwards, the first comparison to fail is "
    f"`d{results['drop'][0]}`, in both broken versions; the {len(results['drop'][1])} failing "
    f"tensors are every one from `d{results['drop'][0]}` down to "
    f"`d{results['drop'][1][-1]}`. `dcounts_sum` and `dcounts_sum_inv` stay correct: they are "
    "computed before the missing line."
)


def parameter_gradient(variant: str) -> np.ndarray:
    """All seven parameter gradients of one version, flattened into one vector."""
    upper = backward_loss_to_hpreact(example.params, example.cache, example.Yb, variant)
    lower = backward_hpreact_to_input(example.params, example.cache, example.Xb, upper["hpreact"])
    grads = {**upper, **lower}
    return np.concatenate([grads[name].ravel() for name in PARAM_NAMES])


right = parameter_gradient("+=")
print()
for variant, label in [("drop", "with the line deleted"), ("=", "with `=` for `+=`")]:
    wrong = parameter_gradient(variant)
    cosine = float(right @ wrong / (np.linalg.norm(right) * np.linalg.norm(wrong)))
    assert -1.0 <= cosine <= 1.0 and not np.allclose(right, wrong)
    print(
        f"- The parameter gradient {label} has cosine similarity {cosine:.3f} with the correct "
        f"one, and {np.linalg.norm(wrong) / np.linalg.norm(right):.2f} times its length."
    )
