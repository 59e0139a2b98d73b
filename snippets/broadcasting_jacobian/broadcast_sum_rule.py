"""Transposing the broadcast Jacobian sums the cotangent over the copied axis."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import assert_shape_then_close, fmt_shape, latex_matrix, md_table

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
    assert_shape_then_close(value, vjp_from_sum_rule)
    rows.append([name, f"${latex_matrix(value, vector='row')}$", f"`{fmt_shape(value.shape)}`", "yes"])

# Pairing a Jacobian with the wrong vec order gives a different (wrong) answer for this G.
mismatched = jacobian_column_major.T @ cotangent.flatten(order="C")
assert not np.allclose(mismatched, vjp_from_sum_rule)

print(f"Take the upstream cotangent $G = {latex_matrix(cotangent)}$ of shape `{fmt_shape(cotangent.shape)}`.")
print()
print(md_table(["route", r"$\bar b$", "shape", r"equals $\sum_i G_{ij}$"], rows))
print()
print(
    "All four routes agree. Mixing conventions does not: $(I_n \\otimes \\mathbf{1}_m)^\\top$ "
    f"applied to the row-major flattening of this $G$ gives ${latex_matrix(mismatched)}$, "
    "which is wrong. A Jacobian matrix is only meaningful together with its flattening order."
)
