"""Two tempting wrong JVP rules, and what catches each."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp
from ad_core.extend import defjvp, primitive
from ad_core.numpy.jvps import broadcast_to_output
from ad_core.test_util import GradientCheckError, check_grads
from bookkit import checked, observed, text


# --8<-- [start:wrong_sign]
@primitive
def my_cos(x):
    return np.cos(x)


defjvp(my_cos, lambda g, ans, x: g * anp.sin(x))  # wrong: d cos x / dx = -sin x
# --8<-- [end:wrong_sign]

point = np.array([0.3, 1.2])
try:
    check_grads(my_cos, modes=("fwd",), order=1)(point)
except GradientCheckError as error:
    sign_message = str(error)
assert "mode 'fwd'" in sign_message and "order 1" in sign_message
print("**A wrong sign.** `check_grads` compares the JVP with central differences:\n")
print(observed(sign_message))


# --8<-- [start:no_broadcast]
@primitive
def my_add(x, y):
    return x + y


defjvp(my_add, lambda g, ans, x, y: g, lambda g, ans, x, y: g)  # forgets broadcasting
# --8<-- [end:no_broadcast]

batch = np.arange(6.0).reshape(2, 3)
bias = np.array([10.0, 20.0, 30.0])
output, tangent = make_jvp(lambda b: my_add(batch, b))(bias)(np.ones(3))
assert output.shape == (2, 3) and tangent.shape == (3,)
try:
    check_grads(lambda b: my_add(batch, b), modes=("fwd",), order=1)(bias)
except GradientCheckError as error:
    shape_message = str(error)
assert "wrong shape" in shape_message
print(text(
    "**A forgotten broadcast.** The output has shape {output} but its tangent has shape "
    "{tangent}. Nothing fails while the pass runs: if another tangent of shape {output} were "
    "added to it, NumPy would broadcast it silently. `check_grads` looks at the shape first:\n",
    output=checked(output.shape, against=np.broadcast_shapes(batch.shape, bias.shape)),
    tangent=checked(tangent.shape, against=bias.shape),  # the rule returned `g` as it came in
))
print(observed(shape_message))

defjvp(my_add,
       lambda g, ans, x, y: broadcast_to_output(g, ans),
       lambda g, ans, x, y: broadcast_to_output(g, ans))
check_grads(lambda b: my_add(batch, b), modes=("fwd",), order=1)(bias)
_, fixed_tangent = make_jvp(lambda b: my_add(batch, b))(bias)(np.ones(3))
_, engine_tangent = make_jvp(lambda b: anp.add(batch, b))(bias)(np.ones(3))
assert np.array_equal(fixed_tangent, engine_tangent) and fixed_tangent.shape == output.shape
print(
    "With `broadcast_to_output(g, ans)` in both rules, as in the engine's own `add` (whose "
    "tangent it now equals), `check_grads` passes."
)
