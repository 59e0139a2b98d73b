"""The Jacobian of a small map R^3 -> R^2, and the JVP and VJP as products with it."""

import numpy as np

from ad_core import jacobian, make_jvp, make_vjp
from ad_core import numpy as anp
from bookkit import assert_shape_then_close, checked, given, latex_matrix, md_table, text


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

# The Jacobian by central differences, column by column, and by hand.
step = 1e-6
columns = [(f(x + step * e) - f(x - step * e)) / (2 * step) for e in np.eye(3)]
J_central = np.stack(columns, axis=1)
assert_shape_then_close(J, J_central, rtol=1e-8, atol=1e-9)
J_by_hand = np.array([[x[1], x[0], 0.0], [1.0, 0.0, np.cos(x[2])]])
# Products with the hand-written matrix: NumPy may sum in another order, hence 1e-12.
J_shown = latex_matrix(checked(J, against=J_by_hand, rtol=1e-12))
v_shown = latex_matrix(given(v))
Jv_shown = latex_matrix(checked(Jv, against=J_by_hand @ v, rtol=1e-12, atol=1e-15))
u_shown = latex_matrix(given(u[None, :]))
uJ_shown = latex_matrix(checked(uJ[None, :], against=(u @ J_by_hand)[None, :], rtol=1e-12, atol=1e-15))

print(
    text(
        "$$\nJ_f(x) = {J}, \\qquad J_f(x)\\,v = {J} {v} = {Jv},\n$$\n",
        J=J_shown,
        v=v_shown,
        Jv=Jv_shown,
    )
)
print(text("$$\nu^\\top J_f(x) = {u} {J} = {uJ}.\n$$", u=u_shown, J=J_shown, uJ=uJ_shown))
print()
out_shape = np.shape(f(x))


def shape(a, expected):
    return checked(a.shape, against=expected, shown_as=lambda s: f"`{s}`")


print(
    md_table(
        ["object", "what it is", "shape"],
        [
            ["`x`", "the input, a point of $\\mathbb{R}^3$", given(x.shape, shown_as=lambda s: f"`{s}`")],
            ["`J`", "the Jacobian, from `jacobian(f)(x)`", shape(J, out_shape + x.shape)],
            ["`v`", "a tangent (input direction)", shape(v, x.shape)],
            ["`Jv`", "JVP, from `make_jvp(f)(x)(v)`", shape(Jv, out_shape)],
            ["`u`", "a cotangent (output weighting)", shape(u, out_shape)],
            ["`uJ`", "VJP, from `make_vjp(f)(x)[0](u)`", shape(uJ, x.shape)],
        ],
    )
)
