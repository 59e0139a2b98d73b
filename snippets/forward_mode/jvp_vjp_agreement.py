"""JVP and VJP are transposes: <u, J v> = <J^T u, v> on random directions."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_jvp, make_vjp
from ad_core.test_util import numerical_jvp
from bookkit import Derivation, checked, fmt_number, given, md_table, text

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
    # Central differences know nothing of the rules; they are good to about 1e-9 here.
    by_differences = float(np.dot(u, numerical_jvp(layer, x, v)))
    rows.append([
        given(trial, shown_as=str),
        checked(left, against=by_differences, rtol=1e-8, atol=1e-8),
        checked(right, against=by_differences, rtol=1e-8, atol=1e-8),
        # The two sides sum their products in different orders: they may differ by rounding.
        checked(abs(left - right), against=0.0, atol=1e-13 * max(1.0, abs(left)),
                shown_as=lambda d: f"`{d:.1e}`"),
        checked(by_differences, against=left, rtol=1e-8, atol=1e-8,
                shown_as=lambda d: f"`{fmt_number(d, 8)}`"),
    ])
print(md_table(
    ["trial", r"$\langle u, J v\rangle$ (forward)", r"$\langle J^\top u, v\rangle$ (reverse)",
     "absolute difference", "central differences"],
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
print(text("\nWhy they agree, with $J$ of shape {j}, $u$ of shape {u}, $v$ of shape {v}:\n",
           j=checked(jacobian(layer)(np.zeros(4)).shape, against=(3, 4)),
           u=given((3,)), v=given((4,))))
trials = 3
print(identity.render(trials=trials, rtol=1e-12))
print(text(
    "The first line uses the engine's forward mode, the last its reverse mode, the middle "
    "lines the full Jacobian; {checks} comparisons on random inputs passed.",
    checks=checked(identity.checks, against=(len(identity.lines) - 1) * trials),
))
