"""The numbers check_grads compares for one function, recomputed step by step with the engine."""

import inspect

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp, make_vjp
from ad_core.test_util import ATOL, EPS, RTOL, check_grads, numerical_jvp
from bookkit import checked, fmt_array_inline, fmt_number, md_table, text


# --8<-- [start:function]
def model(w):
    inputs = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    return anp.tanh(inputs @ w) ** 2  # shape (3,) -> shape (2,)


w = np.array([0.2, -0.1, 0.4])
check_grads(model, modes=("fwd", "rev"), order=2)(w)  # raises if anything disagrees
# --8<-- [end:function]

rng = np.random.default_rng(10)
v = rng.standard_normal(w.shape)  # a direction in the input space
u = rng.standard_normal(2)  # a direction in the output space
by_differences = numerical_jvp(model, w, v)  # J v, approximately
_, by_forward_mode = make_jvp(model)(w)(v)  # J v, exactly
vjp, _ = make_vjp(model)(w)
left = float(np.dot(u, by_differences))  # <u, J v>, approximately
right = float(np.dot(vjp(u), v))  # <J^T u, v>, exactly

# The Jacobian in closed form: d tanh(a)^2 / dw = 2 tanh(a) (1 - tanh(a)^2) inputs, a = inputs @ w.
inputs = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
t = np.tanh(inputs @ w)
J = (2 * t * (1 - t**2))[:, None] * inputs
assert np.abs(by_forward_mode - by_differences).max() > 1e3 * np.finfo(np.float64).eps  # not exact


def ten_digits(value):
    return f"`{fmt_array_inline(value, 10) if np.ndim(value) else fmt_number(value, 10)}`"


rows = [
    ["fwd", "$J v$",
     checked(by_differences, against=J @ v, rtol=RTOL, atol=ATOL, shown_as=ten_digits),
     checked(by_forward_mode, against=J @ v, rtol=1e-14, shown_as=ten_digits),
     # What separates them is the difference's own error, below check_grads' tolerance.
     checked(float(np.max(np.abs(by_forward_mode - by_differences))), against=0.0, atol=ATOL,
             shown_as=lambda d: f"{d:.1e}")],
    ["rev", r"$\langle u, J v\rangle$ vs $\langle J^\top u, v\rangle$",
     checked(left, against=float(u @ J @ v), rtol=RTOL, atol=ATOL, shown_as=ten_digits),
     checked(right, against=float((J.T @ u) @ v), rtol=1e-14, shown_as=ten_digits),
     checked(abs(left - right), against=0.0, atol=ATOL, shown_as=lambda d: f"{d:.1e}")],
]
print(md_table(["mode", "quantity", "central differences", "engine", "difference"], rows))
defaults = inspect.signature(check_grads).parameters
print(text(
    "\nThe step is `EPS` = {eps:g} (a central difference, $\\pm$ `EPS/2`), and a check "
    "passes when `np.allclose(..., rtol, atol)` holds with `rtol` = {rtol:g} and `atol` = "
    "{atol:g}. The differences above are the central difference's own error: truncation plus "
    "rounding, far below the tolerance, and far above what an exact method would leave.",
    eps=checked(EPS, against=defaults["eps"].default),
    rtol=checked(RTOL, against=defaults["rtol"].default),
    atol=checked(ATOL, against=defaults["atol"].default),
))
