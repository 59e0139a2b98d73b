"""Why the `b1` row passes almost any attempt: the BatchNorm backward pass makes the column sums of
`dhprebn` zero, and `db1` is that column sum. Three edits of the worked solution, checked."""

from pathlib import Path

import numpy as np

from ad_core.test_util import COMPARE_ATOL, COMPARE_RTOL
from bookkit import checked, load_snippet_module, md_table

runner = load_snippet_module(Path(__file__).with_name("_run_checker.py"))
worked = runner.checker.worked
example = worked.worked_example()
ORDER = list(runner.checker.BACKWARD_ORDER)
HPREBN_LINE = "dhprebn = dbndiff + np.ones_like(dbndiff) * dbnmeani * (1.0 / n)"

# Each edit, and the column sums of dhprebn predicted without summing dhprebn: zero while the
# mean term, dbnmeani = -sum(dbndiff), is there; the column sums of dbndiff, -dbnmeani, without it.
EDITS = [
    ("`dbnraw = dhpreact` (`bngain` forgotten, a line before those two)",
     ("dbnraw = bngain * dhpreact", "dbnraw = dhpreact"), lambda mine: 0.0),
    ("`dhprebn = 2 * (...)` (the `dhprebn` line, scaled)",
     (HPREBN_LINE, f"dhprebn = 2 * ({HPREBN_LINE.split(' = ', 1)[1]})"), lambda mine: 0.0),
    ("`dhprebn = dbndiff.copy()` (the `dhprebn` line, its mean term dropped)",
     (HPREBN_LINE, "dhprebn = dbndiff.copy()"), lambda mine: float(np.abs(mine["bnmeani"]).max())),
]


def differs(mine, name: str) -> bool:
    """Computed without the checker: the edited gradient against `ad_core`'s, shape then values."""
    a, r = np.asarray(mine[name]), np.asarray(example.engine[name])
    return a.shape != r.shape or not np.allclose(a, r, rtol=COMPARE_RTOL, atol=COMPARE_ATOL)


rows = []
for label, edit, predicted_sums in EDITS:
    report, _ = runner.check_edited(edit)
    flagged = runner.flagged(report)
    mine = runner.edited_backward(edit)(example.params, example.cache, example.Xb, example.Yb)
    column_sums = float(np.abs(np.sum(mine["hprebn"], axis=0)).max())
    rows.append([
        label,
        checked(flagged[0], against=next(name for name in ORDER if differs(mine, name)),
                shown_as=lambda v: f"`{v}`"),
        checked(column_sums, against=predicted_sums(mine), rtol=1e-12, atol=1e-15,
                shown_as=lambda v: f"{v:.1e}"),
        checked("b1" in flagged, against=differs(mine, "b1"),
                shown_as=lambda v: "flagged" if v else "passes"),
    ])
    # The b1 row is flagged exactly when the column sums of dhprebn are not zero (up to atol).
    assert ("b1" in flagged) == (column_sums > COMPARE_ATOL)
# Above BatchNorm, or in the dhprebn line without touching the mean term, b1 passes; the first
# row flagged is never b1's.
assert [row[3].value for row in rows] == [False, False, True]
assert all(row[1].value != "b1" for row in rows)

print(md_table(
    ["edit of the worked solution", "first row flagged", "largest column sum of `dhprebn`", "`b1` row"],
    rows,
    align=["left", "left", "right", "left"],
))
