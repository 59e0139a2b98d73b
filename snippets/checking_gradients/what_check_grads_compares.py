"""The numbers check_grads compares for one function, recomputed step by step with the engine."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp, make_vjp
from ad_core.test_util import ATOL, EPS, RTOL, check_grads, numerical_jvp
from bookkit import md_table


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

np.testing.assert_allclose(by_forward_mode, by_differences, rtol=RTOL, atol=ATOL)
np.testing.assert_allclose(right, left, rtol=RTOL, atol=ATOL)
rows = [
    ["fwd", "$J v$", np.array2string(by_differences, precision=10),
     np.array2string(by_forward_mode, precision=10),
     f"{np.max(np.abs(by_forward_mode - by_differences)):.1e}"],
    ["rev", r"$\langle u, J v\rangle$ vs $\langle J^\top u, v\rangle$", f"{left:.10f}",
     f"{right:.10f}", f"{abs(left - right):.1e}"],
]
print(md_table(["mode", "quantity", "central differences", "engine", "difference"], rows))
print(
    f"\nThe step is `EPS = {EPS:g}` (a central difference, $\\pm$ `EPS/2`), and a check "
    f"passes when `np.allclose(..., rtol={RTOL:g}, atol={ATOL:g})` holds. The differences "
    "above are the central difference's own error: truncation plus rounding, far below the "
    "tolerance, and far above what an exact method would leave."
)
