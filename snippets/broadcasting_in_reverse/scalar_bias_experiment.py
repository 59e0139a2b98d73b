"""The scalar-bias experiment: x = [1, 2, 3], b = 2.0; the gradient of sum(x + b) is a scalar."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from bookkit import checked, load_snippet_module, md_table, text
from bookkit.checks import central_differences
from bookkit.formatting import _fmt_number as fmt_number

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

# --8<-- [start:experiment]
x = np.array([1.0, 2.0, 3.0])
b = 2.0
y = x + b  # NumPy broadcasts b to all three entries
# dL/db for L = sum(x + b):
grad_b = grad(lambda b: anp.sum(x + b))(b)
# --8<-- [end:experiment]

fd = central_differences(lambda b: np.sum(x + b), b)
ones = np.ones(x.shape)  # the seed that sum's rule sends back: d sum(y) / dy

S, V = helpers.shape_cell, helpers.value_cell
print(
    md_table(
        ["quantity", "value", "shape"],
        [
            ["`x`", helpers.given_value(x), helpers.given_shape(np.shape(x))],
            ["`b`", helpers.given_value(b), helpers.given_shape(np.shape(b))],
            ["`y = x + b`", V(y, [x[i] + b for i in range(x.size)]), S(np.shape(y), np.shape(x))],
            [
                "`dL/dy` (seed from `sum`)",
                V(make_vjp(anp.sum)(y)[0](1.0), central_differences(np.sum, y), rtol=1e-8),
                S(np.shape(y), np.shape(x)),
            ],
            # Each of the three copies of b adds 1 * dL/dy_i = 1 to the gradient.
            ["`dL/db`", V(grad_b, float(x.size)), S(np.shape(grad_b), np.shape(b))],
            [
                "finite difference of `L` in `b`",
                checked(fd, against=grad_b, rtol=1e-8, shown_as=lambda v: helpers.code(fmt_number(v, 6))),
                S(np.shape(fd), np.shape(b)),
            ],
        ],
    )
)
print()
print(
    md_table(
        ["direction", "from", "operation", "to"],
        [
            [
                "forward",
                text("`b` {s}", s=helpers.given_shape(np.shape(b))),
                "broadcast, then add `x`",
                text("`y` {s}", s=S(y.shape, x.shape)),
            ],
            [
                "backward",
                text("`dL/dy` {s}", s=S(ones.shape, y.shape)),
                "sum over the only axis",
                text("`dL/db` {s}", s=S(np.shape(grad_b), np.shape(b))),
            ],
        ],
    )
)
print()
print(
    text(
        "The gradient is {gradient}: one unit of `dL/dy` from each of the {n} places `b` was used. "
        "Its shape is {shape}, the shape of `b`, not the shape of `y`.",
        gradient=checked(grad_b, against=fd, rtol=1e-8),
        n=checked(x.size, against=len(y)),
        shape=S(np.shape(grad_b), np.shape(b)),
    )
)
