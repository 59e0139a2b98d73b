"""JVP and VJP are transposes: <u, J v> = <J^T u, v> on random directions."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_jvp, make_vjp
from bookkit import Derivation, md_table

weights = np.random.default_rng(80).standard_normal((3, 4))


# --8<-- [start:function]
def layer(x):
    """A small nonlinear map from shape (4,) to shape (3,)."""
    return anp.tanh(weights @ x) * x[:3] + anp.sin(x[3])


def both_sides(x, u, v):
    _, jv = make_jvp(layer)(x)(v)  # one forward pass: J v, shape (3,)
    vjp, _ = make_vjp(layer)(x)  # one forward trace ...
    jt_u = vjp(u)  # ... and one backward pass: J^T u, shape (4,)
    return np.dot(u, jv), np.dot(jt_u, v)
# --8<-- [end:function]


rng = np.random.default_rng(8)
rows = []
for trial in range(5):
    x, u, v = rng.standard_normal(4), rng.standard_normal(3), rng.standard_normal(4)
    left, right = both_sides(x, u, v)
    np.testing.assert_allclose(left, right, rtol=1e-13)
    rows.append([trial, left, right, f"{abs(left - right):.1e}"])
print(md_table(
    ["trial", r"$\langle u, J v\rangle$ (forward)", r"$\langle J^\top u, v\rangle$ (reverse)",
     "absolute difference"],
    rows, precision=12,
))


def inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.standard_normal(4), "u": rng.standard_normal(3), "v": rng.standard_normal(4)}


identity = Derivation(inputs)
identity.step(r"\langle u, J v\rangle &= u^\top (J v)",
              lambda s: np.dot(s["u"], make_jvp(layer)(s["x"])(s["v"])[1]))
identity.step(r"&= u^\top J\, v", lambda s: s["u"] @ jacobian(layer)(s["x"]) @ s["v"])
identity.step(r"&= (J^\top u)^\top v",
              lambda s: (jacobian(layer)(s["x"]).T @ s["u"]) @ s["v"])
identity.step(r"&= \langle J^\top u, v\rangle",
              lambda s: np.dot(make_vjp(layer)(s["x"])[0](s["u"]), s["v"]))
print("\nWhy they agree, with $J$ of shape `(3, 4)`, $u$ of shape `(3,)`, $v$ of shape `(4,)`:\n")
print(identity.render(rtol=1e-12))
print(
    f"The first line uses the engine's forward mode, the last its reverse mode, the middle "
    f"lines the full Jacobian; {identity.checks} comparisons on random inputs passed."
)
