"""The scalar-bias experiment: x = [1, 2, 3], b = 2.0; the gradient of sum(x + b) is a scalar."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, fmt_array_inline, load_snippet_module, md_table
from bookkit.checks import central_differences

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

# --8<-- [start:experiment]
x = np.array([1.0, 2.0, 3.0])
b = 2.0
y = x + b  # NumPy broadcasts b to all three entries
# dL/db for L = sum(x + b):
grad_b = grad(lambda b: anp.sum(x + b))(b)
# --8<-- [end:experiment]

assert_shape_then_close(y, x + np.full(x.shape, b))
# Each of the three copies of b adds 1 * dL/dy_i = 1 to the gradient, and b is a scalar.
assert np.shape(grad_b) == np.shape(b) == ()
assert_shape_then_close(np.asarray(grad_b), np.asarray(float(x.size)))
fd = central_differences(lambda b: np.sum(x + b), b)
assert_shape_then_close(np.asarray(grad_b), fd, rtol=1e-8)

S, V = helpers.shape_cell, helpers.value_cell
print(md_table(
    ["quantity", "value", "shape"],
    [
        ["`x`", V(x), S(np.shape(x))],
        ["`b`", V(b), S(np.shape(b))],
        ["`y = x + b`", V(y), S(np.shape(y))],
        ["`dL/dy` (seed from `sum`)", V(np.ones_like(y)), S(np.shape(y))],
        ["`dL/db`", V(grad_b), S(np.shape(grad_b))],
        ["finite difference of `L` in `b`", V(np.round(fd, 6)), S(np.shape(fd))],
    ],
))
print()
print(md_table(
    ["direction", "from", "operation", "to"],
    [
        ["forward", f"`b` {S(np.shape(b))}", "broadcast, then add `x`", f"`y` {S(y.shape)}"],
        ["backward", f"`dL/dy` {S(y.shape)}", "sum over axis 0",
         f"`dL/db` {S(np.shape(grad_b))}"],
    ],
))
print()
print(
    f"The gradient is `{fmt_array_inline(grad_b)}`: one unit of `dL/dy` from each of the "
    f"{x.size} places `b` was used. Its shape is `{np.shape(grad_b)}`, the shape of `b`, "
    "not the shape of `y`."
)
