"""The forward-mode chain rule on f(x1, x2) = ln x1 + x1 x2 - sin x2, every line checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp
from bookkit import Derivation, checked, given, text


def f(x):
    return anp.log(x[0]) + x[0] * x[1] - anp.sin(x[1])


def inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.uniform(0.5, 3.0, size=2), "v": rng.standard_normal(2)}


def gradient(v: dict) -> np.ndarray:
    x1, x2 = v["x"]
    return np.array([1 / x1 + x2, x1 - np.cos(x2)])


tangent = Derivation(inputs)
tangent.step(r"\dot f &= \texttt{make\_jvp(f)(x)}(\dot x)[1]",
             lambda v: make_jvp(f)(v["x"])(v["v"])[1])
tangent.step(
    r"&= \frac{\dot x_1}{x_1} + (\dot x_1 x_2 + x_1 \dot x_2) - \cos(x_2)\,\dot x_2",
    lambda v: v["v"][0] / v["x"][0] + (v["v"][0] * v["x"][1] + v["x"][0] * v["v"][1])
    - np.cos(v["x"][1]) * v["v"][1],
)
tangent.step(
    r"&= \left(\frac{1}{x_1} + x_2\right)\dot x_1 + \left(x_1 - \cos x_2\right)\dot x_2",
    lambda v: gradient(v)[0] * v["v"][0] + gradient(v)[1] * v["v"][1],
)
tangent.step(
    r"&= \begin{bmatrix} \tfrac{1}{x_1} + x_2 & x_1 - \cos x_2 \end{bmatrix}"
    r"\begin{bmatrix}\dot x_1 \\ \dot x_2\end{bmatrix} = \nabla f(x)^\top \dot x",
    lambda v: gradient(v) @ v["v"],
)
trials = 3
print(tangent.render(trials=trials))
print(text(
    "The first line is what the engine computes. Each line was evaluated at {trials} random "
    "points $x$ (with $x_1 > 0$) and random directions $\\dot x$, and compared with the line "
    "before it ({checks} comparisons passed).",
    trials=given(trials),
    checks=checked(tangent.checks, against=(len(tangent.lines) - 1) * trials),
))
