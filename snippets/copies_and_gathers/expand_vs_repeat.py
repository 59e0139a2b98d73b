"""expand (broadcast_to) vs repeat/tile: the same values and gradients, different memory."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, fmt_array, fmt_shape, md_table

m, n = 4, 3
rng = np.random.default_rng(21)
bias = rng.normal(size=n)
weights = rng.normal(size=(m, n))

# --8<-- [start:three_copies]
expanded = np.broadcast_to(bias, (m, n))  # a view with stride 0: no new memory
repeated = np.repeat(bias[None, :], m, axis=0)  # a new (m, n) array
tiled = np.tile(bias, (m, 1))  # a new (m, n) array
# --8<-- [end:three_copies]

assert np.array_equal(expanded, repeated) and np.array_equal(expanded, tiled)


def new_bytes(copy: np.ndarray) -> int:
    """Bytes this copy allocated beyond the bias it came from."""
    return 0 if np.shares_memory(copy, bias) else copy.nbytes


# --8<-- [start:gradients]
def loss_through(copy):
    return lambda b: anp.sum(weights * copy(b))


gradient_expand = grad(loss_through(lambda b: anp.broadcast_to(b, (m, n))))(bias)
gradient_repeat = grad(loss_through(lambda b: anp.repeat(b[None, :], m, axis=0)))(bias)
gradient_tile = grad(loss_through(lambda b: anp.tile(b, (m, 1))))(bias)
# --8<-- [end:gradients]

for gradient in (gradient_repeat, gradient_tile):
    assert_shape_then_close(gradient, gradient_expand)
assert_shape_then_close(gradient_expand, weights.sum(axis=0))

rows = []
for label, copy, gradient in [
    ("`np.broadcast_to(b, (m, n))`", expanded, gradient_expand),
    ("`np.repeat(b[None], m, axis=0)`", repeated, gradient_repeat),
    ("`np.tile(b, (m, 1))`", tiled, gradient_tile),
]:
    rows.append(
        [
            label,
            f"`{fmt_shape(copy.shape)}`",
            f"`{copy.strides}`",
            str(copy.nbytes),
            str(new_bytes(copy)),
            "yes" if copy.flags.writeable else "no (read-only view)",
            f"`{fmt_array(gradient)}`",
        ]
    )
assert expanded.strides[0] == 0 and new_bytes(expanded) == 0
assert new_bytes(repeated) == repeated.nbytes == m * n * bias.itemsize
assert not expanded.flags.writeable

print(
    md_table(
        [
            "copy",
            "shape",
            "strides (bytes)",
            "`nbytes` (logical)",
            "bytes allocated",
            "writeable",
            "gradient of $\\sum w \\odot$ copy",
        ],
        rows,
    )
)
print()
print(
    f"The bias has {n} float64 entries ({bias.nbytes} bytes). The broadcast view reports "
    f"`nbytes = {expanded.nbytes}` but allocates nothing: its stride along the copied axis is 0, so "
    f"all {m} rows read the same {bias.nbytes} bytes. `repeat` and `tile` allocate "
    f"{repeated.nbytes} bytes each. All three give the same gradient, `w.sum(axis=0)`."
)
