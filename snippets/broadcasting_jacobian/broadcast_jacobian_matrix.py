"""The Jacobian of b ↦ 1_m bᵀ, written down by hand and read back from the engine."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian
from bookkit import checked, given, latex_matrix, text

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

# The two matrices from their definition, entry by entry: Y[i, j] is a copy of b[j], and sits
# at position j*m + i when vec stacks columns, i*n + j when it stacks rows.
by_definition_column_major = np.zeros((m * n, n))
by_definition_row_major = np.zeros((m * n, n))
for i in range(m):
    for j in range(n):
        by_definition_column_major[j * m + i, j] = 1.0
        by_definition_row_major[i * n + j, j] = 1.0

# The engine's matrix is the row-major one, and not the column-major one.
engine_matrix = checked(jacobian_engine_as_matrix, against=by_definition_row_major)
assert not np.array_equal(jacobian_engine_as_matrix, by_definition_column_major)
# The two matrices differ only by a reordering of rows (the commutation permutation).
row_major_order = np.arange(m * n).reshape(m, n)
assert np.array_equal(jacobian_row_major[row_major_order.flatten(order="F")], jacobian_column_major)

output_shape = np.shape(broadcast_bias(bias))  # the forward pass's own output
ones_per_column = np.unique(jacobian_engine_as_matrix.sum(axis=0))
print(
    text(
        "With $m = {m}$ and $n = {n}$ the engine's `jacobian` returns an array of shape "
        "{shape}: the output's axes {output} followed by the input's axis {input}. Flattened to "
        "{flat} it is one of the two matrices below; which one depends on how you flatten $Y$.",
        m=given(m),
        n=given(n),
        shape=checked(jacobian_engine.shape, against=output_shape + bias.shape),
        output=checked(jacobian_engine.shape[:2], against=output_shape),
        input=checked(jacobian_engine.shape[2:], against=bias.shape),
        flat=checked(jacobian_engine_as_matrix.shape, against=jacobian_row_major.shape),
    )
)
print()
print(
    text(
        "$$\n\\underbrace{{I_n \\otimes \\mathbf{{1}}_m = {column}}}_{{\\text{{column-major }}"
        "\\operatorname{{vec}}}}\\qquad\\underbrace{{\\mathbf{{1}}_m \\otimes I_n = {row}}}"
        "_{{\\text{{row-major }}\\operatorname{{vec}}\\text{{ (the engine)}}}}\n$$",
        column=latex_matrix(checked(jacobian_column_major, against=by_definition_column_major)),
        row=latex_matrix(engine_matrix),
    )
)
print()
print(
    text(
        "The engine's matrix equals $\\mathbf{{1}}_m \\otimes I_n$ entry for entry and differs from "
        "$I_n \\otimes \\mathbf{{1}}_m$; each column of either matrix holds exactly {ones} ones, "
        "one per row of $Y$ that receives a copy of $b_j$.",
        ones=checked(
            ones_per_column, against=np.array([float(output_shape[0])]), shown_as=lambda v: str(int(v[0]))
        ),
    )
)
