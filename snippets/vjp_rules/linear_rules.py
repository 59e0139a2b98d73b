"""A linear primitive: def_linear gives its JVP; its VJP is the transpose, written by hand."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_jvp, make_vjp
from ad_core.extend import def_linear, defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import latex_matrix


# --8<-- [start:rule]
@primitive
def running_total(x):
    return np.cumsum(x)  # y_i = x_0 + ... + x_i: linear in x


def_linear(running_total)  # forward mode: the JVP of a linear map is the map itself
defvjp(running_total, lambda ans, x: lambda g: anp.cumsum(g[::-1])[::-1])  # the transpose
# --8<-- [end:rule]

rng = np.random.default_rng(61)
x = rng.standard_normal(4)
v = rng.standard_normal(4)
u = rng.standard_normal(4)

_, tangent = make_jvp(running_total)(x)(v)
vjp, _ = make_vjp(running_total)(x)
cotangent = vjp(u)
matrix = jacobian(running_total)(x)

np.testing.assert_allclose(tangent, running_total(v), rtol=1e-15)  # J v = f(v)
np.testing.assert_allclose(tangent, matrix @ v, rtol=1e-12)
np.testing.assert_allclose(cotangent, matrix.T @ u, rtol=1e-12)  # u^T J = (J^T u)^T
np.testing.assert_array_equal(matrix, np.tril(np.ones((4, 4))))
check_grads(running_total, modes=("fwd", "rev"), order=1)(x)

print(
    "The Jacobian of `running_total` on a vector of shape `(4,)`, built by the engine "
    "one VJP per row:\n"
)
print(f"$$\nJ = {latex_matrix(matrix, precision=0)}, \\qquad "
      f"J^\\top = {latex_matrix(matrix.T, precision=0)}\n$$\n")
print(
    "The JVP is `running_total(v)` (lower triangle: totals from the left); the VJP "
    "multiplies by $J^\\top$, the upper triangle, which is a running total from the right: "
    "reverse, `cumsum`, reverse. `check_grads` passed in both modes."
)
