"""The derivative of x * sin(x) as a sum over the two paths from x to the output; every line
is evaluated on random inputs and checked against the line before it."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit import Derivation, checked, given, text


def f(x):
    return x * anp.sin(x)


def g(a, b):
    # f with its two uses of x pulled apart: f(x) = g(x, x).
    return a * anp.sin(b)


def make_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.uniform(-3.0, 3.0)}


derivation = Derivation(make_inputs)
derivation.step(r"\frac{df}{dx}(x) &", lambda v: grad(f)(v["x"]))
derivation.step(
    r"&= \frac{\partial g}{\partial a}(x, x) + \frac{\partial g}{\partial b}(x, x)",
    lambda v: grad(g, 0)(v["x"], v["x"]) + grad(g, 1)(v["x"], v["x"]),
)
derivation.step(r"&= \sin x + x \cos x", lambda v: np.sin(v["x"]) + v["x"] * np.cos(v["x"]))
trials = 5
print(derivation.render(trials=trials, rtol=1e-12))
print()
print(
    text(
        "Checked on {checks} comparisons with random $x$ ({trials} draws, each line against the "
        "one before): the engine's gradient of $f$, the sum of the engine's two partial "
        "derivatives of $g(a, b) = a \\sin b$, and the closed form.",
        checks=checked(derivation.checks, against=trials * (len(derivation.lines) - 1)),
        trials=given(trials),
    )
)
