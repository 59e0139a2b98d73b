"""Undoing the concatenation: each context position owns a block of 10 columns of dembcat."""

import numpy as np

from bookkit import fmt_shape, md_table
from bookkit.mlp_by_hand import BLOCK_SIZE, N_EMBD, worked_example

example = worked_example()
dembcat = example.hand["embcat"]
demb = example.hand["emb"]
rows = []
for position in range(BLOCK_SIZE):
    columns = slice(position * N_EMBD, (position + 1) * N_EMBD)
    # The reshape is a pure relabelling: block `position` of the columns is demb[:, position].
    assert np.array_equal(demb[:, position, :], dembcat[:, columns])
    rows.append([str(position), f"`{columns.start}:{columns.stop}`",
                 f"`demb[:, {position}, :]`", f"`{fmt_shape(demb[:, position, :].shape)}`"])
print(md_table(["context position", "columns of `dembcat`", "becomes", "shape"], rows))
print()
print(
    f"`dembcat` has shape `{fmt_shape(dembcat.shape)}` and `demb` has shape "
    f"`{fmt_shape(demb.shape)}`: the same numbers, relabelled. A reshape moves no value, so its "
    "backward pass is the inverse reshape (asserted block by block above)."
)
