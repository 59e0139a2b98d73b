"""A VJP rule written with raw NumPy works once and breaks grad-of-grad; the silent 'fix' is worse."""

import warnings

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, getval, primitive
from ad_core.test_util import GradientCheckError, check_grads
from bookkit import central_differences, checked, fmt_array, md_table, observed

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
# In closed form, for f(x) = sum(tanh(W x)) with t = tanh(W x): the gradient is W^T (1 - t^2),
# and the Hessian is W^T diag(-2 t (1 - t^2)) W.
t = np.tanh(weights @ x)
gradient_closed = weights.T @ (1 - t**2)
hessian_row_closed = (weights.T @ np.diag(-2 * t * (1 - t**2)) @ weights)[0]
first_order = [grad(lambda x, f=f: anp.sum(f(x)))(x) for f in (layer_raw, layer_cut, layer_traced)]

try:
    curvature(layer_raw)(x)
except TypeError as error:
    raw_error = error
raw_message = f"{type(raw_error).__name__}: {raw_error}"
assert "converting a traced value" in raw_message

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    cut_result = curvature(layer_cut)(x)

traced_result = curvature(layer_traced)(x)
step = 1e-6
unit = np.eye(2)
numeric = np.array([
    (grad(lambda x: anp.sum(layer_traced(x)))(x + step * e)[0]
     - grad(lambda x: anp.sum(layer_traced(x)))(x - step * e)[0]) / (2 * step)
    for e in unit
])

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the same warning again; the failure is what matters
        check_grads(lambda x: anp.sum(layer_cut(x)), modes=("rev",), order=2)(x)
except GradientCheckError as error:
    check_message = str(error)
assert "order 2" in check_message


def correct(gradient):
    # Against the closed form, to rounding (the rules and the formula sum in different orders).
    return checked(gradient, against=gradient_closed, rtol=1e-14, shown_as=lambda _: "correct")


def four_digits(value):
    return f"`{fmt_array(value)}`"


print(md_table(
    ["rule", "first derivative", "second derivative (a Hessian row)"],
    [
        ["`np.dot`", correct(first_order[0]),
         checked(type(raw_error).__name__, against=TypeError.__name__,
                 shown_as=lambda n: f"raises `{n}` (below)")],
        ["`getval(ans)` + `np.dot`", correct(first_order[1]),
         checked(cut_result, against=np.zeros(2), shown_as=lambda v: f"{four_digits(v)}, silently wrong")],
        ["`anp.dot`", correct(first_order[2]),
         checked(traced_result, against=hessian_row_closed, rtol=1e-14, shown_as=four_digits)],
        ["central differences",
         checked(central_differences(lambda x: np.sum(np.tanh(weights @ x)), x), against=gradient_closed,
                 rtol=1e-8, shown_as=lambda _: "correct"),
         checked(numeric, against=hessian_row_closed, rtol=1e-6, shown_as=four_digits)],
    ],
))
assert not np.allclose(numeric, 0.0)
print("\nThe `np.dot` version stops at the conversion:\n")
print(observed(raw_message))
print(
    "The `getval` version hides the error: its closure no longer depends on the traced "
    "input, so the second derivative comes out as zeros. The engine's only hint is a warning:\n"
)
cut_warnings = [f"{w.category.__name__}: {w.message}" for w in caught]
assert any("does not depend" in message for message in cut_warnings)
print(observed(cut_warnings[0]))
print("`check_grads(..., order=2)` turns it into a failure:\n")
print(observed(check_message))
