"""Where matrix products are differentiated in ad_core."""

from ad_core.numpy import vjps, wrapper
from bookkit import load_snippet_module, md_table, show_source, source_map

print(
    source_map(
        [
            (vjps.matmul_vjp_0, "A, B → (G ↦ Ā)", "cotangent of the left factor: G Bᵀ"),
            (vjps.matmul_vjp_1, "A, B → (G ↦ B̄)", "cotangent of the right factor: Aᵀ G"),
            (vjps.dot_vjp_0, "A, B → (G ↦ Ā)", "the same for `np.dot`"),
            (vjps.grad_einsum, "operands → (G ↦ operand's cotangent)", "one einsum per operand"),
            (vjps.unbroadcast, "cotangent → input's shape", "sums a shared weight's batch axes"),
            (wrapper.metadata, "array → shape, ndim, dtype", "remembers shapes for the rules"),
        ]
    )
)
print()
print(show_source(vjps.matmul_vjp_0))
print()
print(show_source(vjps.matmul_vjp_1))
print()


where = load_snippet_module("snippets/broadcasting_jacobian/_source_lines.py")

print(
    md_table(
        ["idea on this page", "where the engine does it"],
        [
            [
                r"$\bar A = G B^\top$",
                where.line_of(vjps.matmul_vjp_0, "contribution = anp.matmul(g, anp.swapaxes(B, -1, -2))"),
            ],
            [
                r"$\bar B = A^\top G$",
                where.line_of(vjps.matmul_vjp_1, "contribution = anp.matmul(anp.swapaxes(A, -1, -2), g)"),
            ],
            [
                "a vector factor: the outer product",
                where.line_of(vjps.matmul_vjp_0, "contribution = anp.expand_dims(g, -1) * B"),
            ],
            [
                "a shared weight sums over the batch",
                where.line_of(vjps.matmul_vjp_1, "return unbroadcast(contribution, B_meta)"),
            ],
        ],
    )
)
