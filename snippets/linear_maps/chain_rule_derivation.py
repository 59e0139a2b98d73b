"""The chain rule as a product of Jacobians, and why the product may be evaluated from either
end: a VJP multiplies from the left, a JVP from the right. Every line is checked numerically."""

import numpy as np

from ad_core import jacobian, make_jvp, make_vjp
from ad_core import numpy as anp
from bookkit import Derivation, central_differences, checked, text

W = np.random.default_rng(1).standard_normal((4, 3))  # g: R^3 -> R^4
A = np.random.default_rng(2).standard_normal((2, 4))  # h: R^4 -> R^2


def g(x):
    return anp.tanh(anp.dot(W, x))


def h(z):
    return anp.dot(A, anp.sin(z))


def composed(x):
    return h(g(x))


def make_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.standard_normal(3), "u": rng.standard_normal(2), "v": rng.standard_normal(3)}


def vjp_of_composition(s: dict) -> np.ndarray:
    vjp, _ = make_vjp(composed)(s["x"])
    return vjp(s["u"])


def two_vjps(s: dict) -> np.ndarray:
    vjp_h, _ = make_vjp(h)(g(s["x"]))
    vjp_g, _ = make_vjp(g)(s["x"])
    return vjp_g(vjp_h(s["u"]))  # u^T J_h first, a vector of shape (4,), then times J_g


def product_of_jacobians(s: dict) -> np.ndarray:
    return s["u"] @ (jacobian(h)(g(s["x"])) @ jacobian(g)(s["x"]))


# The three lines of each derivation all use the engine's rules, so they would agree on a wrong
# rule too: anchor the first line of each to central differences.
sample = make_inputs(np.random.default_rng(0))
assert np.allclose(
    vjp_of_composition(sample),
    central_differences(lambda x: sample["u"] @ composed(x), sample["x"]),
    rtol=1e-7,
    atol=1e-9,
)
reverse = Derivation(make_inputs)
reverse.step(r"u^\top J_{h \circ g}(x) &", vjp_of_composition)
reverse.step(r"&= \bigl(u^\top J_h(g(x))\bigr)\, J_g(x)", two_vjps)
reverse.step(r"&= u^\top \bigl(J_h(g(x))\, J_g(x)\bigr)", product_of_jacobians)
print(reverse.render(trials=3, rtol=1e-12))
print()


def jvp_of_composition(s: dict) -> np.ndarray:
    return make_jvp(composed)(s["x"])(s["v"])[1]


def two_jvps(s: dict) -> np.ndarray:
    inner_tangent = make_jvp(g)(s["x"])(s["v"])[1]  # J_g v first, shape (4,)
    return make_jvp(h)(g(s["x"]))(inner_tangent)[1]


def product_then_vector(s: dict) -> np.ndarray:
    return (jacobian(h)(g(s["x"])) @ jacobian(g)(s["x"])) @ s["v"]


step = 1e-6
directional = (composed(sample["x"] + step * sample["v"]) - composed(sample["x"] - step * sample["v"])) / (
    2 * step
)
assert np.allclose(jvp_of_composition(sample), directional, rtol=1e-7, atol=1e-9)
forward = Derivation(make_inputs)
forward.step(r"J_{h \circ g}(x)\, v &", jvp_of_composition)
forward.step(r"&= J_h(g(x))\, \bigl(J_g(x)\, v\bigr)", two_jvps)
forward.step(r"&= \bigl(J_h(g(x))\, J_g(x)\bigr)\, v", product_then_vector)
print(forward.render(trials=3, rtol=1e-12))
print()
# Each derivation compares every line after the first with the line before, once per trial.
expected_checks = sum(3 * (len(d.lines) - 1) for d in (reverse, forward))
print(
    text(
        "{count} comparisons passed: each line against the line before it, on random inputs, "
        "with the engine computing every product.",
        count=checked(reverse.checks + forward.checks, against=expected_checks),
    )
)
