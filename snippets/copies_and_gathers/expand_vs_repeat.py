"""expand (broadcast_to) vs repeat/tile: the same values and gradients, different memory."""

import tracemalloc

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, checked, fmt_array, given, md_table, text, yes_no

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


def allocated_bytes(make) -> int:
    """The array-data bytes that `make()` allocates and keeps, as tracemalloc measures them.

    NumPy reports its data buffers to tracemalloc in a domain of their own, so the difference of
    two snapshots filtered to that domain counts the data the new array holds, and not the few
    hundred bytes of its Python header."""
    started_here = not tracemalloc.is_tracing()
    if started_here:
        tracemalloc.start()
    try:
        only_array_data = [tracemalloc.DomainFilter(True, np.lib.tracemalloc_domain)]
        before = tracemalloc.take_snapshot().filter_traces(only_array_data)
        kept = make()
        after = tracemalloc.take_snapshot().filter_traces(only_array_data)
    finally:
        if started_here:
            tracemalloc.stop()
    assert kept.shape == (m, n)
    return sum(stat.size_diff for stat in after.compare_to(before, "filename"))


def writes(copy: np.ndarray) -> bool:
    """Whether writing an entry works (it writes back the value already there)."""
    try:
        copy[0, 0] = copy[0, 0]
    except ValueError:
        return False
    return True


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

gradient_by_loops = np.array([sum(weights[i, j] for i in range(m)) for j in range(n)])
ROUNDING = 1e-12  # a Python sum against the engine's NumPy sum
itemsize = bias.itemsize
rows = []
for label, copy, make, gradient in [
    ("`np.broadcast_to(b, (m, n))`", expanded, lambda: np.broadcast_to(bias, (m, n)), gradient_expand),
    (
        "`np.repeat(b[None], m, axis=0)`",
        repeated,
        lambda: np.repeat(bias[None, :], m, axis=0),
        gradient_repeat,
    ),
    ("`np.tile(b, (m, 1))`", tiled, lambda: np.tile(bias, (m, 1)), gradient_tile),
]:
    is_view = np.shares_memory(copy, bias)
    rows.append(
        [
            label,
            checked(copy.shape, against=weights.shape),
            # A view reads row 0 again for every row (stride 0); a copy is laid out row after row.
            checked(
                copy.strides,
                against=(0, itemsize) if is_view else (n * itemsize, itemsize),
                shown_as=lambda v: f"`{v}`",
            ),
            checked(copy.nbytes, against=len(copy.tobytes()), shown_as=str),
            checked(allocated_bytes(make), against=0 if is_view else copy.nbytes, shown_as=str),
            checked(
                copy.flags.writeable,
                against=writes(copy),
                shown_as=lambda v: yes_no(v, no="no (read-only view)"),
            ),
            checked(
                gradient, against=gradient_by_loops, rtol=ROUNDING, shown_as=lambda v: f"`{fmt_array(v)}`"
            ),
        ]
    )
assert expanded.base is bias or np.shares_memory(expanded, bias)
assert not np.shares_memory(repeated, bias) and not np.shares_memory(tiled, bias)

print(
    md_table(
        [
            "copy",
            "shape",
            "strides (bytes)",
            "`nbytes` (logical)",
            "array bytes allocated (tracemalloc)",
            "writeable",
            "gradient of $\\sum w \\odot$ copy",
        ],
        rows,
    )
)
print()
print(
    text(
        "The bias has {n} float64 entries ({bias_bytes} bytes). The broadcast view reports "
        "`nbytes = {view_nbytes}` but allocates nothing: its stride along the copied axis is "
        "{stride}, so all {m} rows read the same {bias_bytes} bytes. `repeat` and `tile` allocate "
        "{repeat_bytes} bytes each. All three give the same gradient, `w.sum(axis=0)`.",
        n=given(n),
        bias_bytes=checked(bias.nbytes, against=len(bias.tobytes())),
        view_nbytes=checked(expanded.nbytes, against=len(expanded.tobytes())),
        stride=checked(expanded.strides[0], against=0),
        m=given(m),
        repeat_bytes=checked(
            allocated_bytes(lambda: np.repeat(bias[None, :], m, axis=0)),
            against=len(repeated.tobytes()),
        ),
    )
)
