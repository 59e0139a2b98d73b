"""The smallest VJP rule: a new primitive `my_sin`, its rule, and what grad returns."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import assert_shape_then_close, fmt_array, md_table


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
    assert_shape_then_close(derivative, np.cos(point), rtol=0.0)
    rows.append([f"{point:g}", fmt_array(my_sin(point)), fmt_array(derivative),
                 fmt_array(np.cos(point))])
print(md_table(["$x$", "`my_sin(x)`", "`grad(my_sin)(x)`", r"$\cos x$"], rows))

# The rule is linear in g and elementwise, so it also works on arrays, with g's shape.
vector = np.array([0.0, 0.5, 1.0])
vector_gradient = grad(lambda x: anp.sum(my_sin(x)))(vector)
assert_shape_then_close(vector_gradient, np.cos(vector), rtol=0.0)
print(
    f"\nOn the array `x = {fmt_array(vector)}` of shape `{vector.shape}`, "
    f"`grad(lambda x: anp.sum(my_sin(x)))(x)` returns `{fmt_array(vector_gradient)}`: "
    f"the same shape `{vector_gradient.shape}`, one derivative per element."
)

check_grads(my_sin, modes=("rev",), order=2)(vector)
print(
    "\n`check_grads(my_sin, modes=(\"rev\",), order=2)` passed on that array: the rule agrees "
    "with central differences, and so does the derivative of the rule (it uses `anp.cos`)."
)
