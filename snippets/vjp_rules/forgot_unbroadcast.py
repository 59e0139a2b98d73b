"""The tempting wrong rule: the right local derivative, returned in the output's shape."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive


# --8<-- [start:wrong]
@primitive
def mul_no_unbroadcast(x, y):
    return x * y


defvjp(
    mul_no_unbroadcast,
    lambda ans, x, y: lambda g: g * y,  # wrong when x was broadcast: g has the output's shape
    lambda ans, x, y: lambda g: g * x,
)
# --8<-- [end:wrong]

batch = np.arange(6.0).reshape(2, 3)
bias = np.array([10.0, 20.0, 30.0])


def loss(bias):
    return anp.sum(mul_no_unbroadcast(batch, bias))


# Same shapes: the wrong rule gives the right answer, so a test on equal shapes passes.
same_shape = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
same_shape_gradient = grad(lambda b: anp.sum(mul_no_unbroadcast(batch, b)))(same_shape)
np.testing.assert_array_equal(same_shape_gradient, batch)
print(
    f"With `bias` of the batch's own shape `{same_shape.shape}` the wrong rule returns "
    f"the right gradient (`batch` itself), so a test that only uses equal shapes passes.\n"
)

# --8<-- [start:caught]
try:
    grad(loss)(bias)
except ValueError as error:
    message = str(error)
# --8<-- [end:caught]
assert "shape (2, 3)" in message and "shape (3,)" in message
print("With `bias` of shape `(3,)` the engine stops the backward pass:\n")
print(f"```text\nValueError: {message}\n```\n")

fixed = grad(lambda b: anp.sum(batch * b))(bias)
np.testing.assert_array_equal(fixed, batch.sum(axis=0))
print(
    f"The engine's own `multiply`, whose rules use `unbroadcast_f` like `my_mul`, returns "
    f"`{fixed.tolist()}` of shape `{fixed.shape}`: each column of `batch` summed, "
    "because `bias[j]` met every row."
)
