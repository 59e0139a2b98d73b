"""The checker command on a deliberately wrong attempt: what it flags, and why one row passes."""

from pathlib import Path

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, observed, text

runner = load_snippet_module(Path(__file__).with_name("_run_checker.py"))
worked = runner.checker.worked
wrong = load_snippet_module(runner.HERE / "_wrong_attempt.py")
solution = load_snippet_module(runner.HERE / "_solution.py")

run = runner.run_checker("_wrong_attempt.py")
print(observed(run.shown(), lang="console"))
print()

example = worked.worked_example()
n = example.batch_size
rows = runner.report_rows(run.stdout)
order = list(runner.checker.BACKWARD_ORDER)
mine = wrong.backward(example.params, example.cache, example.Xb, example.Yb)
right = solution.backward(example.params, example.cache, example.Xb, example.Yb)
flagged = [name for name in order if "| approximate: False" in rows[name]]


# Independent of the checker: which rows differ from the worked solution by more than rounding,
# and, for the parameters, which ones a central difference of the loss refuses.
def differs(name: str) -> bool:
    a, b = np.asarray(mine[name]), np.asarray(right[name])
    return a.shape != b.shape or not np.allclose(a, b, rtol=1e-5, atol=1e-8)


assert flagged == [name for name in order if differs(name)]
same_shape = [name for name in example.params if np.shape(mine[name]) == np.shape(right[name])]
refused = [
    name
    for i, name in enumerate(same_shape)
    if not worked.central_difference_agrees(example.params, example.Xb, example.Yb, name, mine[name], seed=i)
]
assert refused == [name for name in same_shape if name in flagged]

# The two lines the attempt gets wrong, and the first row each one spoils.
print(
    md_table(
        ["line of the attempt", "what is wrong", "first row flagged"],
        [
            [
                "`db2 = np.sum(dlogits, axis=0, keepdims=True)`",
                text(
                    "shape {mine} where `b2` has {ref}",
                    mine=checked(np.shape(mine["b2"]), against=(1, right["b2"].size)),
                    ref=checked(np.shape(right["b2"]), against=example.params["b2"].shape),
                ),
                checked(
                    "b2",
                    against=next(name for name in flagged if np.shape(mine[name]) != np.shape(right[name])),
                ),
            ],
            [
                "`dbndiff2 = ... * (1.0 / n)`",
                "the forward variance divides by $n - 1$ (Bessel's correction), not $n$",
                checked("bndiff2", against=next(name for name in order if name != "b2" and differs(name))),
            ],
        ],
    )
)
print()

# Why bnmeani passes although bndiff, upstream of it, is wrong (b1: b1_row.py). The attempt's error in
# dbndiff is 2 * bndiff * (error in dbndiff2), a per-column multiple of bndiff, and every column
# of bndiff sums to zero over the batch (it is hprebn minus its batch mean).
bndiff = example.cache["bndiff"]
error_in_dbndiff = mine["bndiff"] - right["bndiff"]
column_factor = error_in_dbndiff[0] / bndiff[0]
assert np.allclose(error_in_dbndiff, bndiff * column_factor, rtol=1e-9, atol=1e-18)
column_sums = np.abs(bndiff.sum(axis=0)).max()
assert column_sums < 1e-12 * np.abs(bndiff).max() * n
passing_downstream = [name for name in order[order.index("bndiff") :] if name not in flagged]
print(
    text(
        "Downstream of the wrong `bndiff`, these rows pass: {passing}. The attempt's error in `dbndiff` "
        "is, column by column, a multiple of `bndiff` (to {fit} relative), and each column of "
        "`bndiff` sums to zero over the batch (largest column sum {sums:.1e}), so the batch sum that "
        "makes `dbnmeani` cancels the error; `b1` passes for a reason of its own (below). A wrong "
        "upstream line can leave a downstream row right: read the report from the top, and fix the "
        "first row flagged.",
        passing=", ".join(f"`{name}`" for name in passing_downstream),
        fit=given(1e-9, shown_as=lambda v: f"{v:g}"),
        sums=checked(
            float(column_sums),
            against=float(np.abs(np.sum(example.cache["hprebn"] - example.cache["bnmeani"], axis=0)).max()),
            atol=1e-12,
        ),
    )
)
