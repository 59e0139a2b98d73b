"""(m, n) + (n,) + (m, 1): two parameters broadcast along different axes, m = 5, n = 4."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, fmt_shape, md_table

# --8<-- [start:two_sided]
m, n = 5, 4  # distinct sizes, so the two reductions cannot be confused
rng = np.random.default_rng(0)
x = rng.normal(size=(m, n))
row_bias = rng.normal(size=n)  # b, shape (n,): one value per column
column_bias = rng.normal(size=(m, 1))  # r, shape (m, 1): one value per row
weights = rng.normal(size=(m, n))  # loss Σ w ⊙ Y: the upstream gradient is w


def loss(b, r):
    y = x + b + r  # (m, n) + (n,) + (m, 1) → (m, n)
    return anp.sum(weights * y)


gradient_b = grad(loss, 0)(row_bias, column_bias)
gradient_r = grad(loss, 1)(row_bias, column_bias)

expected_b = weights.sum(axis=0)  # new leading axis 0 is summed away
expected_r = weights.sum(axis=1, keepdims=True)  # size-1 axis 1 is summed and kept
# --8<-- [end:two_sided]

assert_shape_then_close(gradient_b, expected_b)
assert_shape_then_close(gradient_r, expected_r)
# Swapping the reductions is caught by the shape check before any value is compared.
for wrong, right in [(weights.sum(axis=1), gradient_b), (weights.sum(axis=0), gradient_r)]:
    try:
        assert_shape_then_close(wrong, right)
        raise RuntimeError("a swapped reduction should not pass")
    except AssertionError:
        pass


def describe(shape: tuple[int, ...], output_shape: tuple[int, ...]) -> tuple[str, str]:
    leading = len(output_shape) - len(shape)
    summed_new = list(range(leading))
    summed_kept = [
        leading + axis for axis, size in enumerate(shape) if size == 1 and output_shape[leading + axis] != 1
    ]
    return (str(summed_new) if summed_new else "none", str(summed_kept) if summed_kept else "none")


rows = []
for name, parameter, gradient in [
    ("$x$", x, weights),
    ("$b$", row_bias, gradient_b),
    ("$r$", column_bias, gradient_r),
]:
    new_axes, kept_axes = describe(parameter.shape, (m, n))
    rows.append(
        [
            name,
            f"`{fmt_shape(parameter.shape)}`",
            new_axes,
            kept_axes,
            "yes" if kept_axes != "none" else "no",
            f"`{fmt_shape(gradient.shape)}`",
        ]
    )
assert gradient_b.shape == row_bias.shape and gradient_r.shape == column_bias.shape

print(
    md_table(
        [
            "input",
            "shape",
            "new leading axes summed",
            "size-1 axes summed",
            "keepdims",
            "gradient shape (engine)",
        ],
        rows,
    )
)
print()
print(
    f"Both gradients came from the engine and matched the manual reductions "
    f"`w.sum(axis=0)` (shape `{fmt_shape(expected_b.shape)}`) and "
    f"`w.sum(axis=1, keepdims=True)` (shape `{fmt_shape(expected_r.shape)}`). "
    "Swapping the two reductions fails the shape check before a single value is compared."
)
