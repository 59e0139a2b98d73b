"""Delete the `+=` where the two paths into `counts` meet: which comparison fails first?"""

import numpy as np

from bookkit import checked, load_snippet_module, md_table, text
from bookkit.gradient_comparison import compare

model = load_snippet_module("snippets/network_by_hand/_model.py")
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
LOSS_TO_HPREACT, PARAM_NAMES = model.LOSS_TO_HPREACT, model.PARAM_NAMES
backward_hpreact_to_input = by_hand.backward_hpreact_to_input
backward_loss_to_hpreact = by_hand.backward_loss_to_hpreact
worked_example = worked.worked_example

example = worked_example()
MEETING_POINT = "counts"        # the tensor that receives both paths
# Prediction: every gradient from the meeting point down is wrong, every one before it right.
predicted_failing = list(LOSS_TO_HPREACT[LOSS_TO_HPREACT.index(MEETING_POINT):])


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
    still_right = LOSS_TO_HPREACT[: LOSS_TO_HPREACT.index(first)]
    first_wrong = checked(first, against=MEETING_POINT).value  # a tensor's name
    rows.append([
        description,
        f"`d{first_wrong}`",
        ", ".join(f"`d{n}`" for n in still_right),
        checked(len(failing), against=len(predicted_failing), shown_as=str),
    ])
    assert failing == predicted_failing
print(
    md_table(
        ["version of the line", "first failing comparison", "still correct before it", "failing"],
        rows,
    )
)
print()
drop_first, drop_failing = results["drop"]
print(text(
    "Walking the table from the loss backwards, the first comparison to fail is `d{first}`, in "
    "both broken versions; the {k} failing tensors are every one from `d{first}` down to "
    "`d{last}`. `dcounts_sum` and `dcounts_sum_inv` stay correct: they are computed before the "
    "missing line.",
    first=drop_first,
    k=checked(len(drop_failing), against=len(predicted_failing)),
    last=drop_failing[-1],
))


def parameter_gradient(grads: dict) -> np.ndarray:
    """All seven parameter gradients, flattened into one vector."""
    return np.concatenate([np.asarray(grads[name]).ravel() for name in PARAM_NAMES])


def hand_gradient(variant: str) -> np.ndarray:
    upper = backward_loss_to_hpreact(example.params, example.cache, example.Yb, variant)
    lower = backward_hpreact_to_input(example.params, example.cache, example.Xb, upper["hpreact"])
    return parameter_gradient({**upper, **lower})


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


right = hand_gradient("+=")
engine_right = parameter_gradient(example.engine)       # ad_core's gradient, the reference
print()
for variant, label in [("drop", "with the line deleted"), ("=", "with `=` for `+=`")]:
    wrong = hand_gradient(variant)
    # Each figure is computed against the hand-written correct gradient and checked against the
    # same figure computed against ad_core's gradient.
    print(text(
        "- The parameter gradient {label} has cosine similarity {cos} with the correct one, and "
        "{ratio} times its length.",
        label=label,
        cos=checked(cosine(right, wrong), against=cosine(engine_right, wrong), rtol=1e-9,
                    shown_as=lambda v: f"{v:.3f}"),
        ratio=checked(float(np.linalg.norm(wrong) / np.linalg.norm(right)),
                      against=float(np.linalg.norm(wrong) / np.linalg.norm(engine_right)), rtol=1e-9,
                      shown_as=lambda v: f"{v:.2f}"),
    ))
    # A wrong gradient, not a rescaled right one: the cosine is visibly below one.
    assert cosine(right, wrong) < 0.99
