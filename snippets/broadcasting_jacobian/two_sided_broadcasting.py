"""(m, n) + (n,) + (m, 1): two parameters broadcast along different axes, m = 5, n = 4."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, checked, given, md_table, text, yes_no

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


def summed_axes(gradient_of_copy: np.ndarray, parameter: np.ndarray) -> tuple[list[int], list[int]]:
    """Which axes of the upstream gradient must be summed to give `parameter`'s gradient, read
    off NumPy's broadcasting of `parameter` to the output, axis by axis: a new leading axis, or
    an axis where the parameter has size one and the output does not."""
    view = np.broadcast_to(parameter, gradient_of_copy.shape)  # the forward copy
    leading = view.ndim - parameter.ndim
    new = list(range(leading))
    kept = [
        leading + a
        for a in range(parameter.ndim)
        if view.strides[leading + a] == 0 and view.shape[leading + a] != 1
    ]
    return new, kept


def axes_text(axes: list[int], expected: list[int]):
    # As lists: an empty result is "none".
    return checked(axes, against=expected, shown_as=lambda v: str(v) if v else "none")


rows = []
for name, parameter, gradient, expected_new, expected_kept in [
    ("$x$", x, weights, [], []),
    ("$b$", row_bias, gradient_b, [0], []),
    ("$r$", column_bias, gradient_r, [], [1]),
]:
    new_axes, kept_axes = summed_axes(weights, parameter)
    rows.append(
        [
            name,
            given(parameter.shape),
            axes_text(new_axes, expected_new),
            axes_text(kept_axes, expected_kept),
            # keepdims is needed exactly when the parameter has every output axis but not every size.
            checked(
                bool(kept_axes),
                against=parameter.ndim == weights.ndim and parameter.shape != weights.shape,
                shown_as=yes_no,
            ),
            checked(gradient.shape, against=parameter.shape),
        ]
    )

print(
    md_table(
        [
            "input",
            "shape",
            "new leading axes summed",
            "size-one axes summed",
            "keepdims",
            "gradient shape (engine)",
        ],
        rows,
    )
)
print()
print(
    text(
        "Both gradients came from the engine and matched the manual reductions "
        "`w.sum(axis=0)` (shape {b}) and `w.sum(axis=1, keepdims=True)` (shape {r}). "
        "Swapping the two reductions fails the shape check before a single value is compared.",
        b=checked(expected_b.shape, against=row_bias.shape),
        r=checked(expected_r.shape, against=column_bias.shape),
    )
)
