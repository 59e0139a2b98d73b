"""A VJP rule written with raw NumPy works once and breaks grad-of-grad; the silent 'fix' is worse."""

import warnings

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, getval, primitive
from ad_core.test_util import GradientCheckError, check_grads
from bookkit import md_table

weights = np.array([[1.0, -2.0], [0.5, 1.5]])


# --8<-- [start:raw]
@primitive
def layer_raw(x):
    return np.tanh(weights @ x)


defvjp(layer_raw, lambda ans, x: lambda g: np.dot(g * (1 - ans**2), weights))  # raw np.dot
# --8<-- [end:raw]


# --8<-- [start:cut]
@primitive
def layer_cut(x):
    return np.tanh(weights @ x)


defvjp(layer_cut, lambda ans, x: lambda g: np.dot(g * (1 - getval(ans) ** 2), weights))
# --8<-- [end:cut]


# --8<-- [start:traced]
@primitive
def layer_traced(x):
    return np.tanh(weights @ x)


defvjp(layer_traced, lambda ans, x: lambda g: anp.dot(g * (1 - ans**2), weights))
# --8<-- [end:traced]


def curvature(layer):
    """d/dx of the gradient of sum(layer(x)): a Hessian row, so it needs grad of grad."""
    return grad(lambda x: grad(lambda x: anp.sum(layer(x)))(x)[0])


x = np.array([0.3, -0.4])
first_order = [grad(lambda x, f=f: anp.sum(f(x)))(x) for f in (layer_raw, layer_cut, layer_traced)]
np.testing.assert_allclose(first_order[0], first_order[2], rtol=1e-15)
np.testing.assert_allclose(first_order[1], first_order[2], rtol=1e-15)

try:
    curvature(layer_raw)(x)
except TypeError as error:
    raw_message = str(error)
assert "converting a traced value" in raw_message

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    cut_result = curvature(layer_cut)(x)
cut_warnings = [str(w.message) for w in caught]

traced_result = curvature(layer_traced)(x)
step = 1e-6
unit = np.eye(2)
numeric = np.array([
    (grad(lambda x: anp.sum(layer_traced(x)))(x + step * e)[0]
     - grad(lambda x: anp.sum(layer_traced(x)))(x - step * e)[0]) / (2 * step)
    for e in unit
])
np.testing.assert_allclose(traced_result, numeric, rtol=1e-6)
assert np.all(cut_result == 0.0) and not np.allclose(numeric, 0.0)

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the same warning again; the failure is what matters
        check_grads(lambda x: anp.sum(layer_cut(x)), modes=("rev",), order=2)(x)
except GradientCheckError as error:
    check_message = str(error)
assert "order 2" in check_message

print(md_table(
    ["rule", "first derivative", "second derivative (a Hessian row)"],
    [
        ["`np.dot`", "correct", f"`TypeError`: {raw_message.split('.')[0]}"],
        ["`getval(ans)` + `np.dot`", "correct",
         f"`{np.array2string(cut_result)}`, silently wrong"],
        ["`anp.dot`", "correct", f"`{np.array2string(traced_result, precision=4)}`"],
        ["central differences", "", f"`{np.array2string(numeric, precision=4)}`"],
    ],
))
print(
    "\nThe `getval` version hides the error: its closure no longer depends on the traced "
    "input, so the second derivative comes out as zeros. The engine's only hint is a warning:\n"
)
assert any("does not depend" in message for message in cut_warnings)
print(f"```text\nUserWarning: {cut_warnings[0]}\n```\n")
print("`check_grads(..., order=2)` turns it into a failure:\n")
print(f"```text\n{check_message}\n```")
