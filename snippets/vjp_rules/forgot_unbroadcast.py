"""The tempting wrong rule: the right local derivative, returned in the output's shape."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive
from bookkit import central_differences, checked, given, observed, text


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
print(
    text(
        "With `bias` of the batch's own shape {shape} the wrong rule returns the right gradient "
        "(`batch` itself, {gradient}), so a test that only uses equal shapes passes.\n",
        shape=given(same_shape.shape),
        # d/db sum(batch * b) = batch, read off central differences rather than the rule.
        gradient=checked(
            same_shape_gradient,
            against=central_differences(lambda b: np.sum(batch * b), same_shape),
            rtol=1e-8,
        ),
    )
)

# --8<-- [start:caught]
try:
    grad(loss)(bias)
except ValueError as error:
    message = str(error)
# --8<-- [end:caught]
# The message names the output's shape and the argument's, as the engine's shape check words it.
assert f"shape {batch.shape}" in message and f"shape {bias.shape}" in message
print(text("With `bias` of shape {shape} the engine stops the backward pass:\n", shape=given(bias.shape)))
print(observed(f"ValueError: {message}"))

fixed = grad(lambda b: anp.sum(batch * b))(bias)
print(
    text(
        "The engine's own `multiply`, whose rules use `unbroadcast_f` like `my_mul`, returns "
        "{fixed} of shape {shape}: each column of `batch` summed, because `bias[j]` met every row.",
        fixed=checked(fixed, against=[sum(row[j] for row in batch) for j in range(batch.shape[1])]),
        shape=checked(fixed.shape, against=np.shape(bias)),
    )
)
