"""A linear primitive: def_linear gives its JVP; its VJP is the transpose, written by hand."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_jvp, make_vjp
from ad_core.extend import def_linear, defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import central_differences, checked, given, latex_matrix, text


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
check_grads(running_total, modes=("fwd", "rev"), order=1)(x)
# The Jacobian from central differences, one column per basis vector: no rule involved.
central = np.column_stack([central_differences(lambda x, i=i: running_total(x)[i], x) for i in range(4)]).T
# The wrong reverse rule the note below warns about: the forward map reused as its own transpose.
forward_as_transpose = anp.cumsum(u)

print(
    text(
        "The Jacobian of `running_total` on a vector of shape {shape}, built by the engine one VJP "
        "per row:\n",
        shape=given(x.shape),
    )
)
print(
    text(
        "$$\nJ = {J}, \\qquad J^\\top = {JT}\n$$\n",
        J=latex_matrix(checked(matrix, against=np.tril(np.ones((4, 4))))),
        JT=latex_matrix(checked(matrix.T, against=central.T, atol=1e-9, rtol=0.0)),
    )
)
print(
    text(
        "The JVP is `running_total(v)` (lower triangle: totals from the left); the VJP "
        "multiplies by $J^\\top$, the upper triangle, which is a running total from the right: "
        "reverse, `cumsum`, reverse. `check_grads` passed in both modes. Reusing the forward map "
        "as the VJP would be wrong here: on a random `u` it differs from $J^\\top u$ in {wrong} "
        "of {n} entries (every one).",
        wrong=checked(
            int(np.sum(~np.isclose(forward_as_transpose, central.T @ u))),
            against=len(u),  # in general every entry: entry i is u_0 + ... + u_i against u_i + ... + u_{n-1}
        ),
        n=given(len(u)),
    )
)
