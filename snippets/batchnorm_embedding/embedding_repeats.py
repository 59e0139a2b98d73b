"""The embedding backward must add once per use; an indexed `+=` keeps one write per row."""

import numpy as np

from bookkit import Rendered, checked, given, load_snippet_module, md_table, text, yes_no
from bookkit.gradient_comparison import compare

model = load_snippet_module("snippets/network_by_hand/_model.py")
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
ALPHABET = model.ALPHABET
backward_hpreact_to_input = by_hand.backward_hpreact_to_input
worked_example = worked.worked_example

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
# By hand: row 0 is used twice with upstream ones, so it must receive 1 + 1 in each column.
print(text(
    "With context {context} and an upstream gradient of ones, `np.add.at` gives `dC[0]` = {right}; "
    "the indexed `+=` gives {naive}. NumPy evaluates `dC[idx] += v` as `dC[idx] = dC[idx] + v`: it "
    "reads all rows first, adds, then writes, so a repeated index is written twice with the same "
    "stale sum.",
    context=given(context.tolist(), shown_as=lambda v: f"`{v}`"),
    right=checked(dC_add_at[0], against=np.array([1.0 + 1.0, 1.0 + 1.0])),
    naive=checked(dC_naive[0], against=np.array([1.0, 1.0])),
))
print()

# The chapter's minibatch.
example = worked_example()
Xb = example.Xb
C_shape = example.params["C"].shape
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
# Counted another way: distinct characters with np.unique, repeats from the sorted contexts.
values, counts = np.unique(Xb, return_counts=True)
print(text(
    "The chapter's minibatch has {size} context characters but only {distinct} distinct ones; "
    "{repeated} characters occur more than once. The most used: {top}.",
    size=checked(Xb.size, against=Xb.shape[0] * Xb.shape[1]),
    distinct=checked(int(np.count_nonzero(uses)), against=len(values)),
    repeated=checked(len(repeated), against=int(np.sum(counts > 1))),
    top=Rendered(", ").join(
        text("`{c}` ({k} times)", c=ALPHABET[i], k=checked(int(uses[i]), against=int(np.sum(Xb == i))))
        for i in top
    ),
))
print()
tolerance_rows = ~np.isclose(example.hand["C"], example.engine["C"]).all(axis=1)
print(md_table(
    ["embedding backward", "shape check", "approximate", "rows of `dC` that differ from `ad_core`",
     "max abs diff"],
    [
        ["`np.add.at(dC, Xb, demb)`",
         checked(right.shapes_match, against=example.hand["C"].shape == C_shape, shown_as=lambda ok: "✓"),
         checked(right.approximate, against=example.central_differences_agree(("C",))["C"], shown_as=yes_no),
         checked(int(np.count_nonzero(tolerance_rows)), against=0, shown_as=str),
         checked(right.max_abs_diff, against=0.0, atol=1e-12, shown_as=lambda v: f"{v:.1e}")],
        ["`dC[Xb] += demb`",
         checked(wrong.shapes_match, against=naive["C"].shape == C_shape, shown_as=lambda ok: "✓"),
         # wrong exactly on the repeated characters, predicted from the batch alone
         checked(wrong.approximate, against=len(repeated) == 0,
                 shown_as=lambda ok: "yes" if ok else "**no**"),
         text("{k}: exactly the repeated ones", k=checked(len(wrong_rows), against=len(repeated))),
         checked(wrong.max_abs_diff,
                 against=float(np.max(np.abs(naive["C"] - example.hand["C"]))), rtol=1e-9,
                 shown_as=lambda v: f"{v:.1e}")],
    ],
))
