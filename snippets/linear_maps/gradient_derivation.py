"""The gradient of the running example, derived line by line; every line is evaluated on random
inputs and checked against the line before it."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit import Derivation, checked, text


def f(x):
    x1, x2 = x[0], x[1]
    return anp.log(x1) + x1 * x2 - anp.sin(x2)


def make_inputs(rng: np.random.Generator) -> dict:
    # ln needs x1 > 0; x2 is free.
    return {"x1": rng.uniform(0.5, 3.0), "x2": rng.uniform(-3.0, 3.0)}


def engine_gradient(v: dict) -> np.ndarray:
    return grad(f)(np.array([v["x1"], v["x2"]]))


def term_by_term(v: dict) -> np.ndarray:
    # Each term differentiated on its own by the engine: the derivative of a sum is the sum.
    x1, x2 = v["x1"], v["x2"]
    d_log = grad(lambda a: anp.log(a))(x1)
    d_product_x1 = grad(lambda a: a * x2)(x1)
    d_product_x2 = grad(lambda b: x1 * b)(x2)
    d_sin = grad(lambda b: anp.sin(b))(x2)
    return np.array([d_log + d_product_x1 - 0.0, 0.0 + d_product_x2 - d_sin])


def closed_form(v: dict) -> np.ndarray:
    return np.array([1 / v["x1"] + v["x2"], v["x1"] - np.cos(v["x2"])])


derivation = Derivation(make_inputs)
derivation.step(r"\nabla f(x_1, x_2) &", engine_gradient)
derivation.step(
    r"&= \begin{bmatrix} \partial_{x_1} \ln x_1 + \partial_{x_1}(x_1 x_2) - \partial_{x_1} \sin x_2"
    r" \\ \partial_{x_2} \ln x_1 + \partial_{x_2}(x_1 x_2) - \partial_{x_2} \sin x_2"
    r" \end{bmatrix}",
    term_by_term,
)
derivation.step(r"&= \begin{bmatrix} 1/x_1 + x_2 \\ x_1 - \cos x_2 \end{bmatrix}", closed_form)
print(derivation.render(trials=5, rtol=1e-12))
print()
print(
    text(
        "Checked on {count} comparisons (random $x_1 > 0$ and $x_2$): the first line is the "
        "engine's `grad`, the second differentiates each term separately with the engine, the "
        "last is the closed form.",
        count=checked(derivation.checks, against=5 * (len(derivation.lines) - 1)),
    )
)
