"""The Jacobian of a small map R^3 -> R^2, and the JVP and VJP as products with it."""

import numpy as np

from ad_core import jacobian, make_jvp, make_vjp
from ad_core import numpy as anp
from bookkit import assert_shape_then_close, latex_matrix, md_table


# --8<-- [start:products]
def f(x):
    return anp.stack([x[0] * x[1], anp.sin(x[2]) + x[0]])


x = np.array([1.0, 2.0, 0.5])
rng = np.random.default_rng(0)
v = rng.standard_normal(3)  # a tangent: an input direction
u = rng.standard_normal(2)  # a cotangent: a weighting of the outputs

J = jacobian(f)(x)  # one row per output, one column per input
_, Jv = make_jvp(f)(x)(v)  # forward mode: J @ v, without building J
vjp, _ = make_vjp(f)(x)
uJ = vjp(u)  # reverse mode: u @ J, without building J
# --8<-- [end:products]

# The Jacobian by central differences, column by column.
step = 1e-6
columns = [(f(x + step * e) - f(x - step * e)) / (2 * step) for e in np.eye(3)]
J_central = np.stack(columns, axis=1)
assert_shape_then_close(J, J_central, rtol=1e-8, atol=1e-9)
J_by_hand = np.array([[x[1], x[0], 0.0], [1.0, 0.0, np.cos(x[2])]])
assert_shape_then_close(J, J_by_hand)
assert_shape_then_close(Jv, J @ v)
assert_shape_then_close(uJ, u @ J)

print("$$")
print(
    rf"J_f(x) = {latex_matrix(J)}, \qquad "
    rf"J_f(x)\,v = {latex_matrix(J)} {latex_matrix(v)} = {latex_matrix(Jv)},"
)
print("$$")
print()
print("$$")
print(
    rf"u^\top J_f(x) = {latex_matrix(u[None, :])} {latex_matrix(J)} = "
    rf"{latex_matrix(uJ[None, :])}."
)
print("$$")
print()
print(
    md_table(
        ["object", "what it is", "shape"],
        [
            ["`x`", "the input, a point of $\\mathbb{R}^3$", f"`{x.shape}`"],
            ["`J`", "the Jacobian, from `jacobian(f)(x)`", f"`{J.shape}`"],
            ["`v`", "a tangent (input direction)", f"`{v.shape}`"],
            ["`Jv`", "JVP, from `make_jvp(f)(x)(v)`", f"`{Jv.shape}`"],
            ["`u`", "a cotangent (output weighting)", f"`{u.shape}`"],
            ["`uJ`", "VJP, from `make_vjp(f)(x)[0](u)`", f"`{uJ.shape}`"],
        ],
    )
)
