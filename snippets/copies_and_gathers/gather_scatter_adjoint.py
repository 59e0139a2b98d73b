"""Gather and scatter-add are each other's adjoints: the inner-product identity, checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import assert_shape_then_close, fmt_shape, latex_matrix, md_table

vocab, width = 4, 2
index = np.array([1, 3, 1, 0, 1])
rng = np.random.default_rng(13)


# --8<-- [start:pair]
def gather(table: np.ndarray) -> np.ndarray:
    return table[index]  # (vocab, width) → (len(index), width)


def scatter_add(rows: np.ndarray) -> np.ndarray:
    result = np.zeros((vocab, width))
    np.add.at(result, index, rows)  # repeated indices add up
    return result


# --8<-- [end:pair]


# --8<-- [start:identity]
rows_of_table = []
for _trial in range(3):
    table = rng.normal(size=(vocab, width))
    rows = rng.normal(size=(index.size, width))
    left = np.sum(gather(table) * rows)  # ⟨gather(A), G⟩
    right = np.sum(table * scatter_add(rows))  # ⟨A, scatter_add(G)⟩
    assert np.isclose(left, right, rtol=1e-12)
    rows_of_table.append([f"{left:.12f}", f"{right:.12f}", f"{abs(left - right):.1e}"])
# --8<-- [end:identity]

# As matrices: gather is P, scatter-add is Pᵀ.
gather_matrix = np.zeros((index.size, vocab))
gather_matrix[np.arange(index.size), index] = 1.0
table = rng.normal(size=(vocab, width))
rows = rng.normal(size=(index.size, width))
assert_shape_then_close(gather_matrix @ table, gather(table))
assert_shape_then_close(gather_matrix.T @ rows, scatter_add(rows))

# The engine: the VJP of indexing is its `untake` (a scatter-add), and the VJP of untake is indexing.
vjp_of_gather, _ = make_vjp(lambda a: a[index])(table)
assert_shape_then_close(vjp_of_gather(rows), scatter_add(rows))
vjp_of_scatter, _ = make_vjp(lambda r: anp.untake(r, index, (vocab, width)))(rows)
assert_shape_then_close(vjp_of_scatter(table), gather(table))

print(
    md_table(
        [
            r"$\langle \mathrm{gather}(A), G\rangle$",
            r"$\langle A, \mathrm{scatter\_add}(G)\rangle$",
            "difference",
        ],
        rows_of_table,
    )
)
print()
print(
    f"With `index = {index.tolist()}` and a table of shape `{fmt_shape((vocab, width))}`, "
    "gather is multiplication by the 0/1 matrix $P$ and scatter-add by its transpose:"
)
print()
print("$$")
print("P = " + latex_matrix(gather_matrix) + r",\qquad P^\top = " + latex_matrix(gather_matrix.T))
print("$$")
print()
counts = gather_matrix.sum(axis=0).astype(int)
assert counts.tolist() == np.bincount(index, minlength=vocab).tolist()
print(
    "Each row of $P$ holds one `1` (every output row reads one table row); column $k$ holds as "
    f"many ones as index $k$ appears, here `{counts.tolist()}`. The engine agrees on both "
    "directions: the VJP of `a[index]` is its `untake` (a scatter-add into zeros), and the VJP of "
    "`untake` is `a[index]` again."
)
