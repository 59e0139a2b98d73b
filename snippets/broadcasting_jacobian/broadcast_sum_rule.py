"""Transposing the broadcast Jacobian sums the cotangent over the copied axis."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import checked, given, latex_matrix, md_table, text, yes_no

m, n = 3, 2
rng = np.random.default_rng(11)
bias = rng.normal(size=n)
cotangent = rng.integers(-4, 5, size=(m, n)).astype(float)  # small integers keep the sums readable

ones_m = np.ones((m, 1))
jacobian_column_major = np.kron(np.eye(n), ones_m)
jacobian_row_major = np.kron(ones_m, np.eye(n))

# --8<-- [start:routes]
vjp_from_column_major = jacobian_column_major.T @ cotangent.flatten(order="F")
vjp_from_row_major = jacobian_row_major.T @ cotangent.flatten(order="C")
vjp_from_sum_rule = cotangent.sum(axis=0)  # b̄_j = Σ_i G_ij

vjp_function, _ = make_vjp(lambda b: anp.zeros((m, n)) + b)(bias)
vjp_from_engine = vjp_function(cotangent)
# --8<-- [end:routes]

# The independent answer: the column sums, added up entry by entry in plain Python.
column_sums = np.array([sum(float(cotangent[i, j]) for i in range(m)) for j in range(n)])

column_route = r"$(I_n \otimes \mathbf{1}_m)^\top \operatorname{vec}_{\mathrm{col}}(G)$"
row_route = r"$(\mathbf{1}_m \otimes I_n)^\top \operatorname{vec}_{\mathrm{row}}(G)$"
routes = {
    column_route: vjp_from_column_major,
    row_route: vjp_from_row_major,
    r"sum rule $\sum_i G_{ij}$": vjp_from_sum_rule,
    "engine `make_vjp`": vjp_from_engine,
}
rows = []
for name, value in routes.items():
    rows.append(
        [
            name,
            text("${value}$", value=latex_matrix(checked(value, against=column_sums), vector="row")),
            checked(value.shape, against=bias.shape),
            checked(bool(np.array_equal(value, column_sums)), against=True, shown_as=yes_no),
        ]
    )

# Pairing a Jacobian with the wrong vec order: column j of (I_n ⊗ 1_m) picks entries j·m … j·m + m - 1
# of whatever vector it meets, here the row-major flattening of G.
mismatched = jacobian_column_major.T @ cotangent.flatten(order="C")
picked_by_column = np.array([cotangent.flatten(order="C")[j * m : (j + 1) * m].sum() for j in range(n)])
assert not np.allclose(mismatched, column_sums)

print(
    text(
        "Take the upstream cotangent $G = {G}$ of shape {shape}.",
        G=latex_matrix(given(cotangent)),
        shape=given(cotangent.shape),
    )
)
print()
print(md_table(["route", r"$\bar b$", "shape", r"equals $\sum_i G_{ij}$"], rows))
print()
print(
    text(
        "All four routes agree. Mixing conventions does not: $(I_n \\otimes \\mathbf{{1}}_m)^\\top$ "
        "applied to the row-major flattening of this $G$ gives ${mismatched}$, "
        "which is wrong. A Jacobian matrix is only meaningful together with its flattening order.",
        mismatched=latex_matrix(checked(mismatched, against=picked_by_column)),
    )
)
