"""The smallest VJP rule: a new primitive `my_sin`, its rule, and what grad returns."""

import math

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import central_differences, checked, fmt_array, given, md_table, text


# --8<-- [start:rule]
@primitive
def my_sin(x):
    return np.sin(x)  # raw NumPy: the engine never looks inside a primitive


def my_sin_vjp_maker(ans, x):
    # Called once per traced call, during the forward pass: it may capture x and ans.
    def vjp(g):
        # Called during the backward pass with the cotangent of the output (shape of ans).
        return g * anp.cos(x)

    return vjp


defvjp(my_sin, my_sin_vjp_maker)
# --8<-- [end:rule]

# --8<-- [start:use]
points = np.array([0.0, 0.5, 1.0, 2.0])
derivatives = [grad(my_sin)(point) for point in points]
# --8<-- [end:use]

rows = []
for point, derivative in zip(points, derivatives, strict=True):
    rows.append([
        given(point, shown_as=lambda v: f"{v:g}"),
        checked(my_sin(point), against=math.sin(point), rtol=1e-15, shown_as=fmt_array),
        # The rule's output against central differences of the forward function alone.
        checked(derivative, against=central_differences(lambda v: np.sin(v), point), rtol=1e-9, atol=1e-10,
                shown_as=fmt_array),
        checked(np.cos(point), against=math.cos(point), rtol=1e-15, shown_as=fmt_array),
    ])
print(md_table(["$x$", "`my_sin(x)`", "`grad(my_sin)(x)`", r"$\cos x$"], rows))

# The rule is linear in g and elementwise, so it also works on arrays, with g's shape.
vector = np.array([0.0, 0.5, 1.0])
vector_gradient = grad(lambda x: anp.sum(my_sin(x)))(vector)
print()
print(text(
    "On the array `x` equal to {x}, of shape {shape}, `grad(lambda x: anp.sum(my_sin(x)))(x)` "
    "returns {gradient}: the same shape {same}, one derivative per element.",
    x=given(vector),
    shape=given(vector.shape),
    gradient=checked(vector_gradient, against=np.cos(vector)),
    same=checked(vector_gradient.shape, against=np.shape(vector)),
))

check_grads(my_sin, modes=("rev",), order=2)(vector)
print(
    "\n`check_grads(my_sin, modes=(\"rev\",), order=2)` passed on that array: the rule agrees "
    "with central differences, and so does the derivative of the rule (it uses `anp.cos`)."
)
