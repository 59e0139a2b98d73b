"""Undoing the concatenation: each context position owns a block of N_EMBD columns of dembcat."""

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

model = load_snippet_module("snippets/network_by_hand/_model.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
BLOCK_SIZE, N_EMBD = model.BLOCK_SIZE, model.N_EMBD
worked_example = worked.worked_example

example = worked_example()
dembcat = example.hand["embcat"]
demb = example.hand["emb"]
rows = []
for position in range(BLOCK_SIZE):
    columns = slice(position * N_EMBD, (position + 1) * N_EMBD)
    # The reshape is a pure relabelling: block `position` of the columns is demb[:, position].
    assert np.array_equal(demb[:, position, :], dembcat[:, columns])
    rows.append([given(position, shown_as=str),
                 text("`{a}:{b}`", a=given(columns.start), b=given(columns.stop)),
                 f"`demb[:, {position}, :]`",
                 checked(demb[:, position, :].shape, against=(example.batch_size, N_EMBD))])
print(md_table(["context position", "columns of `dembcat`", "becomes", "shape"], rows))
print()
print(text(
    "`dembcat` has shape {a} and `demb` has shape {b}: the same numbers, relabelled. A reshape "
    "moves no value, so its backward pass is the inverse reshape (asserted block by block above).",
    a=checked(dembcat.shape, against=example.cache["embcat"].shape),
    b=checked(demb.shape, against=example.cache["emb"].shape),
))
