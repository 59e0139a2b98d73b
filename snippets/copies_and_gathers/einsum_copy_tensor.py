"""Every copy is a contraction with a 0/1 tensor T, and its backward is the same contraction."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import assert_shape_then_close, fmt_shape, latex_matrix, md_table

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

print(
    f"With $m = {m}$, $n = {n}$ the copy tensor has shape `{fmt_shape(copy_tensor.shape)}`. "
    f"Flatten its first two axes and you get the `{fmt_shape((m * n, n))}` matrix"
)
print()
print("$$")
print(r"T_{(ij),k} = " + latex_matrix(copy_tensor.reshape(m * n, n)))
print("$$")
print()
print(
    "which is the broadcast Jacobian $\\mathbf{1}_m \\otimes I_n$ of the previous chapter, in the "
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
    assert_shape_then_close(value, tensor @ vector)
    assert_shape_then_close(vjp_function(output_cotangent), tensor.T @ output_cotangent)
    assert np.array_equal(tensor.sum(axis=1), np.ones(source_of_each_output.size))
    rows.append(
        [
            label,
            f"`{source_of_each_output.tolist()}`",
            f"${latex_matrix(tensor.sum(axis=0), vector='row')}$",
            "yes",
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
