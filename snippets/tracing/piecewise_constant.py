"""Functions whose output carries no derivative return plain values, and the gradient still
flows through the values they select."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit import fmt_array, md_table


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
one_hot = np.eye(x.size)[np.argmax(x)]
assert np.array_equal(g_largest, one_hot)
assert np.array_equal(g_rounded, np.floor(x))

step = 1e-6
rows = []
for name, function, gradient in [
    ("largest", largest, g_largest),
    ("rounded_scale", rounded_scale, g_rounded),
]:
    central = np.array(
        [(function(x + step * e) - function(x - step * e)) / (2 * step) for e in np.eye(x.size)]
    )
    assert np.allclose(gradient, central, rtol=1e-6, atol=1e-8)
    rows.append([f"`{name}`", fmt_array(gradient), fmt_array(central, 6)])

print(f"At `x = {fmt_array(x)}`:")
print()
print(md_table(["function", "grad", "central difference"], rows))
