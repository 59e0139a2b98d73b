"""An error smaller than the tolerance passes: the worked solution with a wrong `BN_EPS`, checked.
What the exact column shows that the approximate column cannot, and when it cannot either: a
right line not written as the engine computes it (then a smaller rtol finds the wrong line)."""

from pathlib import Path

import numpy as np

from ad_core.test_util import COMPARE_ATOL, COMPARE_RTOL
from bookkit import checked, given, load_snippet_module, md_table, text

runner = load_snippet_module(Path(__file__).with_name("_run_checker.py"))
worked = runner.checker.worked
example = worked.worked_example()
ORDER = list(runner.checker.BACKWARD_ORDER)
EPS_LINE = "BN_EPS = 1e-5  # the forward pass's BatchNorm epsilon"
FORWARD_EPS = worked.model.BN_EPS
bnvar = example.cache["bnvar"]

rows, results = [], {}
for eps in (0.0, 1.1e-5, 1.2e-5):
    edit = (EPS_LINE, f"BN_EPS = {eps!r}")
    report, ok = runner.check_edited(edit)
    mine = runner.edited_backward(edit)(example.params, example.cache, example.Xb, example.Yb)
    engine = example.engine
    # Without the checker: which rows differ beyond the tolerances, and which are not bit-equal.
    beyond = [name for name in ORDER
              if not np.allclose(mine[name], engine[name], rtol=COMPARE_RTOL, atol=COMPARE_ATOL)]
    unequal = [name for name in ORDER if not np.array_equal(mine[name], engine[name])]
    flagged, first_unequal = runner.flagged(report), runner.not_bit_equal(report)[0]
    # dbnvar = -1/2 (bnvar + eps)^(-3/2) dbnvar_inv: its relative error, entry by entry, in closed form
    relative = float(np.max(np.abs(mine["bnvar"] / engine["bnvar"] - 1)))
    closed_form = float(np.max(np.abs(((bnvar + eps) / (bnvar + FORWARD_EPS)) ** -1.5 - 1)))
    results[eps] = (ok, flagged, first_unequal, relative)
    assert unequal == ORDER[ORDER.index("bnvar"):]  # every row from the wrong line down differs
    rows.append([
        given(eps, shown_as=lambda v: f"`{v:g}`"),
        checked(relative, against=closed_form, rtol=1e-6, shown_as=lambda v: f"{v:.1e}"),
        checked(len(flagged), against=len(beyond), shown_as=str),
        checked(flagged[0] if flagged else "none", against=beyond[0] if beyond else "none",
                shown_as=lambda v: v if v == "none" else f"`{v}`"),
        checked(first_unequal, against=unequal[0], shown_as=lambda v: f"`{v}`"),
        checked(0 if ok else 1, against=0 if not beyond else 1, shown_as=str),
    ])

print(md_table(
    ["`BN_EPS` in `backward`", "largest relative error of `dbnvar`", "rows flagged", "first flagged",
     "first not bit-equal", "exit status"],
    rows,
    align=["left", "right", "right", "left", "left", "right"],
))
print()

passing, late = results[1.1e-5], results[1.2e-5]
assert passing[0] and passing[3] < COMPARE_RTOL and late[1] == ["W1"]
assert {first for _, _, first, _ in results.values()} == {"bnvar"}
print(text(
    "The forward pass uses `BN_EPS` = {forward:g}. With {eps:g} in `backward`, every row from "
    "`bnvar` down differs from the engine's (none is bit-equal), but the wrong line's error is at "
    "most {rel:.1e} relative, below rtol = {rtol:g}: every row passes and the checker exits "
    "{status}. With {eps2:g} the only row flagged is `{late}`, far below the wrong line. In each "
    "case the first row that is not bit-equal is `{first}`, the line that is wrong, because every "
    "right line of the worked solution rounds as the engine's does (its report above).",
    forward=given(FORWARD_EPS),
    eps=given(1.1e-5),
    rel=checked(passing[3], against=rows[1][1].value, rtol=1e-15),
    rtol=given(COMPARE_RTOL),
    status=checked(0 if passing[0] else 1, against=0),
    eps2=given(1.2e-5),
    late=checked(late[1][0], against=rows[2][3].value),
    first=checked(passing[2], against=late[2]),
))
print()

# The same wrong BN_EPS, with one right line written differently from the engine's operations.
REWRITE = ("dcounts_sum = -(counts_sum**-2) * dcounts_sum_inv",
           "dcounts_sum = -dcounts_sum_inv / counts_sum**2")
TIGHT_RTOL = 1e-6
edits = (REWRITE, (EPS_LINE, "BN_EPS = 1.2e-05"))
report, ok = runner.check_edited(*edits)
tight_report, tight_ok = runner.check_edited(*edits, rtol=TIGHT_RTOL)
mine = runner.edited_backward(*edits)(example.params, example.cache, example.Xb, example.Yb)
unequal = [name for name in ORDER if not np.array_equal(mine[name], example.engine[name])]
beyond = [name for name in ORDER
          if not np.allclose(mine[name], example.engine[name], rtol=COMPARE_RTOL, atol=COMPARE_ATOL)]
tight = [name for name in ORDER
         if not np.allclose(mine[name], example.engine[name], rtol=TIGHT_RTOL, atol=COMPARE_ATOL)]
rewritten_only = runner.edited_backward(REWRITE)(example.params, example.cache, example.Xb, example.Yb)
# the rewrite alone is right: within the tolerances everywhere, bit-equal nowhere from its row down
assert all(np.allclose(rewritten_only[k], example.engine[k], rtol=1e-12, atol=1e-15) for k in ORDER)
assert not np.array_equal(rewritten_only["counts_sum"], example.engine["counts_sum"])
assert not ok and not tight_ok and runner.flagged(report) == beyond == ["W1"]
print(text(
    "A right line written differently is usually only close to the engine's. Write "
    "`{rewrite}` (right) in the attempt with {eps2:g}: the checker still flags only `{late}`, but "
    "the first row that is not bit-equal is now `{first}`, a right line far above the wrong one. "
    "So the exact column finds an error below the tolerance only if the right lines above it "
    "are bit-equal to the engine's. Otherwise tighten rtol: with `--rtol {tight:g}` the first "
    "row flagged on this attempt is `{tight_first}`, the wrong line.",
    rewrite=given(REWRITE[1]),
    eps2=given(1.2e-5),
    late=checked(runner.flagged(report)[0], against=beyond[0]),
    first=checked(runner.not_bit_equal(report)[0], against=unequal[0]),
    tight=given(TIGHT_RTOL),
    tight_first=checked(runner.flagged(tight_report)[0], against=tight[0]),
))
