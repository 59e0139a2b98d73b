"""Functions whose output carries no derivative return plain values, and the gradient still
flows through the values they select."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit import central_differences, checked, fmt_array, given, md_table, text


# --8<-- [start:select]
def largest(x):
    i = anp.argmax(x)  # a plain integer: argmax is not a primitive
    return x[i]  # indexing *is* a primitive, so the gradient reaches x[i]


def rounded_scale(x):
    return anp.sum(anp.floor(x) * x)  # floor(x) comes back as a constant array


# --8<-- [end:select]


x = np.array([0.3, 2.7, -1.2, 1.9])
g_largest = grad(largest)(x)
g_rounded = grad(rounded_scale)(x)
# By hand: the one-hot vector of the largest entry, and floor(x) (floor is constant between
# integers, so d/dx of floor(x) * x is floor(x)).
expected = {"largest": np.eye(x.size)[np.argmax(x)], "rounded_scale": np.floor(x)}

rows = []
for name, function, gradient in [
    ("largest", largest, g_largest),
    ("rounded_scale", rounded_scale, g_rounded),
]:
    central = central_differences(function, x)
    rows.append(
        [
            f"`{name}`",
            checked(gradient, against=expected[name], shown_as=fmt_array),
            # Both functions are linear near x: central differences are exact up to rounding.
            checked(
                central, against=expected[name], rtol=1e-6, atol=1e-8, shown_as=lambda c: fmt_array(c, 6)
            ),
        ]
    )

print(text("At `x = {x}`:", x=fmt_array(given(x))))
print()
print(md_table(["function", "grad", "central difference"], rows))
