"""The Jacobian of b ↦ 1_m bᵀ, written down by hand and read back from the engine."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian
from bookkit import assert_shape_then_close, fmt_shape, latex_matrix

m, n = 3, 2
rng = np.random.default_rng(7)
bias = rng.normal(size=n)

# --8<-- [start:build]
ones_m = np.ones((m, 1))
identity_n = np.eye(n)
jacobian_column_major = np.kron(identity_n, ones_m)  # I_n ⊗ 1_m: stack Y's columns
jacobian_row_major = np.kron(ones_m, identity_n)  # 1_m ⊗ I_n: stack Y's rows


def broadcast_bias(b):
    return anp.zeros((m, n)) + b  # nothing but the broadcast


jacobian_engine = jacobian(broadcast_bias)(bias)  # output axes, then input axes
jacobian_engine_as_matrix = jacobian_engine.reshape(m * n, n)  # C (row-major) order
# --8<-- [end:build]

assert jacobian_engine.shape == (m, n, n)
assert_shape_then_close(jacobian_engine_as_matrix, jacobian_row_major)
# The two vec conventions give different matrices: the engine's is the row-major one.
assert not np.array_equal(jacobian_engine_as_matrix, jacobian_column_major)
# Each column holds exactly m ones: b_j is copied to m places.
assert np.array_equal(jacobian_column_major.sum(axis=0), np.full(n, m))
assert np.array_equal(jacobian_row_major.sum(axis=0), np.full(n, m))
# The two matrices differ only by a reordering of rows (the commutation permutation).
row_major_order = np.arange(m * n).reshape(m, n)
column_major_position = row_major_order.flatten(order="F")
assert np.array_equal(jacobian_row_major[column_major_position], jacobian_column_major)

print(
    f"With $m = {m}$ and $n = {n}$ the engine's `jacobian` returns an array of shape "
    f"`{fmt_shape(jacobian_engine.shape)}`: the output's axes `{fmt_shape((m, n))}` followed by "
    f"the input's axis `{fmt_shape((n,))}`. Flattened to "
    f"`{fmt_shape(jacobian_engine_as_matrix.shape)}` it is one of the two "
    "matrices below; which one depends on how you flatten $Y$."
)
print()
print("$$")
print(
    r"\underbrace{I_n \otimes \mathbf{1}_m = "
    + latex_matrix(jacobian_column_major)
    + r"}_{\text{column-major }\operatorname{vec}}"
    + r"\qquad"
    + r"\underbrace{\mathbf{1}_m \otimes I_n = "
    + latex_matrix(jacobian_row_major)
    + r"}_{\text{row-major }\operatorname{vec}\text{ (the engine)}}"
)
print("$$")
print()
print(
    f"The engine's matrix equals $\\mathbf{{1}}_m \\otimes I_n$ entry for entry and differs from "
    f"$I_n \\otimes \\mathbf{{1}}_m$; each column of either matrix holds exactly {m} ones, "
    f"one per row of $Y$ that receives a copy of $b_j$."
)
