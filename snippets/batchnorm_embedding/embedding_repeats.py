"""The embedding backward must add once per use; an indexed `+=` keeps one write per row."""

import numpy as np

from bookkit import fmt_array, md_table
from bookkit.mlp_by_hand import ALPHABET, backward_hpreact_to_input, compare, worked_example

# A batch of one context, ". . e": row 0 of C is used twice.
C = np.arange(6.0).reshape(3, 2)
context = np.array([[0, 0, 2]])
demb_tiny = np.ones((1, 3, 2))
# --8<-- [start:tiny]
dC_add_at = np.zeros_like(C)
np.add.at(dC_add_at, context, demb_tiny)    # row 0 receives two contributions
dC_naive = np.zeros_like(C)
dC_naive[context] += demb_tiny             # row 0 is written twice; the last write wins
# --8<-- [end:tiny]
assert dC_add_at[0, 0] == 2.0 and dC_naive[0, 0] == 1.0
print(
    f"With context `{context.tolist()}` and an upstream gradient of ones, `np.add.at` gives row 0 "
    f"`{fmt_array(dC_add_at[0])}`; the indexed `+=` gives `{fmt_array(dC_naive[0])}`. NumPy "
    "evaluates `dC[idx] += v` as `dC[idx] = dC[idx] + v`: it reads all rows first, adds, then "
    "writes, so a repeated index is written twice with the same stale sum."
)
print()

# The chapter's minibatch.
example = worked_example()
Xb = example.Xb
uses = np.bincount(Xb.ravel(), minlength=len(ALPHABET))
repeated = np.flatnonzero(uses > 1)
naive = backward_hpreact_to_input(
    example.params, example.cache, Xb, example.hand["hpreact"], embedding_update="indexed +="
)
right = compare("C", example.hand["C"], example.engine["C"])
wrong = compare("C", naive["C"], example.engine["C"])
wrong_rows = np.flatnonzero(~np.isclose(naive["C"], example.engine["C"]).all(axis=1))
assert right.approximate and not wrong.approximate
# Exactly the repeated characters are wrong.
assert np.array_equal(wrong_rows, repeated)
top = np.argsort(-uses, kind="stable")[:5]
print(
    f"The chapter's minibatch has {Xb.size} context characters but only "
    f"{int(np.count_nonzero(uses))} distinct ones; {len(repeated)} characters occur more than "
    f"once. The most used: "
    + ", ".join(f"`{ALPHABET[i]}` ({uses[i]} times)" for i in top) + "."
)
print()
print(md_table(
    ["embedding backward", "shape check", "approximate", "rows of `dC` that differ from `ad_core`",
     "max abs diff"],
    [
        ["`np.add.at(dC, Xb, demb)`", "✓", "yes" if right.approximate else "no",
         "0", f"{right.max_abs_diff:.1e}"],
        ["`dC[Xb] += demb`", "✓" if wrong.shapes_match else "✗",
         "yes" if wrong.approximate else "**no**", f"{len(wrong_rows)}: exactly the repeated ones",
         f"{wrong.max_abs_diff:.1e}"],
    ],
))
