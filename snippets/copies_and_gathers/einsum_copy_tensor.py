"""Every copy is a contraction with a 0/1 tensor T, and its backward is the same contraction."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_vjp
from bookkit import assert_shape_then_close, checked, given, latex_matrix, md_table, text, yes_no

m, n = 3, 2
rng = np.random.default_rng(8)
bias = rng.normal(size=n)
upstream = rng.normal(size=(m, n))

# --8<-- [start:broadcast]
# T[i, j, k] = 1 when output position (i, j) is a copy of input entry k.
copy_tensor = np.zeros((m, n, n))
for i in range(m):
    for j in range(n):
        copy_tensor[i, j, j] = 1.0

forward = np.einsum("ijk,k->ij", copy_tensor, bias)  # Y = T · b
backward = np.einsum("ijk,ij->k", copy_tensor, upstream)  # b̄ = G · T, the same T
# --8<-- [end:broadcast]

assert_shape_then_close(forward, np.broadcast_to(bias, (m, n)))
assert_shape_then_close(backward, upstream.sum(axis=0))

# The engine differentiates the einsum itself; its VJP for b is an einsum with the same T.
vjp_through_einsum, _ = make_vjp(lambda b: anp.einsum("ijk,k->ij", copy_tensor, b))(bias)
assert_shape_then_close(vjp_through_einsum(upstream), backward)

broadcast_view = np.broadcast_to(bias, (m, n))
print(
    text(
        "With $m = {m}$, $n = {n}$ the copy tensor has shape {shape}. Flatten its first two axes "
        "and you get the {flat} matrix",
        m=given(m),
        n=given(n),
        shape=checked(copy_tensor.shape, against=broadcast_view.shape + bias.shape),
        flat=checked(copy_tensor.reshape(m * n, n).shape, against=(broadcast_view.size, bias.size)),
    )
)
print()
print(
    text(
        "$$\nT_{{(ij),k}} = {matrix}\n$$",
        matrix=latex_matrix(
            checked(copy_tensor.reshape(m * n, n), against=np.kron(np.ones((m, 1)), np.eye(n)))
        ),
    )
)
print()
print(
    "which is the broadcast Jacobian $\\mathbf{1}_m \\otimes I_n$ of "
    "[The Jacobian of broadcasting](broadcasting-jacobian.md), in the "
    "engine's row-major order. The forward contraction reproduces `np.broadcast_to`, the backward "
    "contraction reproduces `G.sum(axis=0)`, and the engine's own VJP of the `einsum` gives the "
    "same numbers."
)

# The same pattern for four different copies. Each T is built from its definition, then used both ways.
size, copies = 3, 2
vector = rng.normal(size=size)
index = np.array([2, 0, 2, 1])


def tensor_from(positions: np.ndarray, input_size: int) -> np.ndarray:
    """T[p, k] = 1 where output position p copies input entry positions[p]."""
    tensor = np.zeros((positions.size, input_size))
    tensor[np.arange(positions.size), positions] = 1.0
    return tensor


cases = [
    ("`np.repeat(a, 2)`", np.repeat(np.arange(size), copies), lambda a: anp.repeat(a, copies)),
    ("`np.tile(a, 2)`", np.tile(np.arange(size), copies), lambda a: anp.tile(a, copies)),
    (f"`a[{index.tolist()}]`", index, lambda a: a[index]),
    (
        "`np.broadcast_to(a, (2, 3))`, flattened",
        np.broadcast_to(np.arange(size), (copies, size)).reshape(-1),
        lambda a: anp.reshape(anp.broadcast_to(a, (copies, size)), (-1,)),
    ),
]
rows = []
for label, source_of_each_output, function in cases:
    tensor = tensor_from(source_of_each_output, size)
    output_cotangent = rng.normal(size=source_of_each_output.size)
    vjp_function, value = make_vjp(function)(vector)
    forward_matches = np.allclose(value, tensor @ vector, rtol=1e-12, atol=0)
    vjp_matches = np.allclose(vjp_function(output_cotangent), tensor.T @ output_cotangent, rtol=1e-12, atol=0)
    assert np.array_equal(tensor.sum(axis=1), np.ones(source_of_each_output.size))
    # Read the pattern back from the engine: row p of the copy's Jacobian has its one 1 at the
    # input entry that output p copies, and a column's sum counts that entry's copies.
    engine_jacobian = jacobian(function)(vector)
    rows.append(
        [
            label,
            checked(
                source_of_each_output.tolist(),
                against=engine_jacobian.argmax(axis=1).tolist(),
                shown_as=lambda v: f"`{v}`",
            ),
            text(
                "${counts}$",
                counts=latex_matrix(
                    checked(tensor.sum(axis=0), against=engine_jacobian.sum(axis=0)), vector="row"
                ),
            ),
            checked(forward_matches and vjp_matches, against=True, shown_as=yes_no),
        ]
    )

print()
print(
    md_table(
        [
            "copy",
            "input entry behind each output",
            "copies per input (column sums of $T$)",
            "engine forward $= T a$, engine VJP $= T^\\top g$",
        ],
        rows,
    )
)
