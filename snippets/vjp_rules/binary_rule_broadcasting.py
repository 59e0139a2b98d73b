"""A binary rule: one maker per argument, each wrapped in unbroadcast_f."""

import numpy as np

from ad_core import make_vjp
from ad_core.extend import defvjp, primitive, unbroadcast_f
from ad_core.test_util import check_grads
from bookkit import assert_shape_then_close, central_differences, checked, fmt_shape, given, md_table


# --8<-- [start:rule]
@primitive
def my_mul(x, y):
    return x * y  # NumPy broadcasts x and y to a common shape here


defvjp(
    my_mul,
    lambda ans, x, y: unbroadcast_f(x, lambda g: g * y),  # argument 0: d(x*y)/dx = y
    lambda ans, x, y: unbroadcast_f(y, lambda g: g * x),  # argument 1: d(x*y)/dy = x
)
# --8<-- [end:rule]



def sum_to_shape(array: np.ndarray, shape: tuple) -> np.ndarray:
    """The oracle: sum the leading axes broadcasting added, then the stretched size-1 axes."""
    array = array.sum(axis=tuple(range(array.ndim - len(shape))))
    stretched = tuple(
        axis for axis, size in enumerate(shape) if size == 1 and array.shape[axis] != 1
    )
    return array.sum(axis=stretched, keepdims=True)


rng = np.random.default_rng(6)
shape_pairs = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 3), ()), ((2, 1), (1, 3))]


def checked_shape(shape: tuple, expected: tuple):
    # As lists: the empty shape () is one shared object, which checked() refuses as a
    # comparison of a value with itself.
    return checked(list(shape), against=list(expected), shown_as=lambda v: f"`{fmt_shape(tuple(v))}`")


def reverse_mode_row(x: np.ndarray, y: np.ndarray, g_rng: np.random.Generator) -> list:
    x_vjp, out = make_vjp(lambda x: my_mul(x, y))(x)
    y_vjp, _ = make_vjp(lambda y: my_mul(x, y))(y)
    g = g_rng.standard_normal(out.shape)  # any cotangent of the output's shape
    x_bar, y_bar = x_vjp(g), y_vjp(g)
    assert_shape_then_close(x_bar, sum_to_shape(g * y, x.shape))
    assert_shape_then_close(y_bar, sum_to_shape(g * x, y.shape))
    # The same VJPs from central differences of <g, x * y>, with no rule involved.
    x_central = central_differences(lambda x: np.sum(g * (x * y)), x)
    y_central = central_differences(lambda y: np.sum(g * (x * y)), y)
    agrees = bool(np.allclose(x_bar, x_central, rtol=1e-6, atol=1e-8)
                  and np.allclose(y_bar, y_central, rtol=1e-6, atol=1e-8))
    try:
        check_grads(lambda x: my_mul(x, y), modes=("rev",), order=1)(x)
        check_grads(lambda y: my_mul(x, y), modes=("rev",), order=1)(y)
        passed = True
    except AssertionError:
        passed = False
    return [
        given(x.shape),
        given(y.shape),
        checked_shape(out.shape, np.broadcast_shapes(x.shape, y.shape)),
        checked_shape(x_bar.shape, x.shape),
        checked_shape(y_bar.shape, y.shape),
        checked(passed, against=agrees, shown_as=lambda ok: "passed" if ok else "failed"),
    ]


rows = [
    reverse_mode_row(rng.standard_normal(x_shape), rng.standard_normal(y_shape), rng)
    for x_shape, y_shape in shape_pairs
]

print(md_table(
    ["`x.shape`", "`y.shape`", "`g.shape` (output)", r"$\bar x$ shape", r"$\bar y$ shape",
     "`check_grads` on each argument"],
    rows,
))
