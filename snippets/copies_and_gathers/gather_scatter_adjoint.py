"""Gather and scatter-add are each other's adjoints: the inner-product identity, checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_vjp
from bookkit import assert_shape_then_close, checked, given, latex_matrix, md_table, text

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
    rows_of_table.append((table, rows, left, right))
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

ROUNDING = 1e-12  # the two sides add the same products in different orders
table_rows = []
for trial_table, trial_rows, left, right in rows_of_table:
    table_rows.append(
        [
            # Each side against the same inner product written with the 0/1 matrix P of gather.
            text(
                "{v:.12f}",
                v=checked(left, against=np.sum((gather_matrix @ trial_table) * trial_rows), rtol=ROUNDING),
            ),
            text(
                "{v:.12f}",
                v=checked(right, against=np.sum(trial_table * (gather_matrix.T @ trial_rows)), rtol=ROUNDING),
            ),
            text("{v:.1e}", v=checked(abs(left - right), against=0.0, atol=ROUNDING * abs(right))),
        ]
    )
print(
    md_table(
        [
            r"$\langle \mathrm{gather}(A), G\rangle$",
            r"$\langle A, \mathrm{scatter\_add}(G)\rangle$",
            "difference",
        ],
        table_rows,
    )
)
print()
print(
    text(
        "With `index = {index}` and a table of shape {shape}, gather is multiplication by the "
        "zero-one matrix $P$ and scatter-add by its transpose:",
        index=given(index.tolist()),
        shape=given((vocab, width)),
    )
)
print()
# The same matrices read off the engine: the Jacobian of `a[index]` and of `untake`, one column of
# the table at a time (the columns do not mix).
engine_gather = jacobian(lambda a: a[index])(table)[:, 0, :, 0]
engine_scatter = jacobian(lambda r: anp.untake(r, index, (vocab, width)))(rows)[:, 0, :, 0]
print(
    text(
        "$$\nP = {P},\\qquad P^\\top = {PT}\n$$",
        P=latex_matrix(checked(gather_matrix, against=engine_gather)),
        PT=latex_matrix(checked(gather_matrix.T, against=engine_scatter)),
    )
)
print()
counts = gather_matrix.sum(axis=0).astype(int)
print(
    text(
        "Each row of $P$ holds a single one (every output row reads one table row); column $k$ holds "
        "a one for each time $k$ appears in `index`, here {counts}. The engine agrees on both "
        "directions: the VJP of `a[index]` is its `untake` (a scatter-add into zeros), and the VJP of "
        "`untake` is `a[index]` again.",
        counts=checked(
            counts.tolist(), against=np.bincount(index, minlength=vocab).tolist(), shown_as=lambda v: f"`{v}`"
        ),
    )
)
