"""Forward and central differences on a cubic, where Taylor's expansion is exact: the error terms."""

import numpy as np

from bookkit import Derivation, checked, given, text

SMALLEST_STEP = 0.1


def cubic_inputs(rng: np.random.Generator) -> dict:
    a, b, c, d = rng.standard_normal(4)
    return {"a": a, "b": b, "c": c, "d": d, "x": rng.standard_normal(), "h": rng.uniform(SMALLEST_STEP, 1)}


def f(v: dict, x: float) -> float:
    return v["a"] * x**3 + v["b"] * x**2 + v["c"] * x + v["d"]


def f1(v: dict) -> float:  # f'(x)
    return 3 * v["a"] * v["x"] ** 2 + 2 * v["b"] * v["x"] + v["c"]


def f2(v: dict) -> float:  # f''(x)
    return 6 * v["a"] * v["x"] + 2 * v["b"]


def f3(v: dict) -> float:  # f'''(x)
    return 6 * v["a"]


forward = Derivation(cubic_inputs)
forward.step(r"\frac{f(x + h) - f(x)}{h}", lambda v: (f(v, v["x"] + v["h"]) - f(v, v["x"])) / v["h"])
forward.step(r"&= f'(x) + \tfrac{h}{2} f''(x) + \tfrac{h^2}{6} f'''(x)",
             lambda v: f1(v) + v["h"] / 2 * f2(v) + v["h"] ** 2 / 6 * f3(v))
central = Derivation(cubic_inputs)
central.step(r"\frac{f(x + h) - f(x - h)}{2h}",
             lambda v: (f(v, v["x"] + v["h"]) - f(v, v["x"] - v["h"])) / (2 * v["h"]))
central.step(r"&= f'(x) + \tfrac{h^2}{6} f'''(x)", lambda v: f1(v) + v["h"] ** 2 / 6 * f3(v))

# Large steps (h up to 1) keep the error terms far above rounding, so the check has teeth.
print("For a cubic $f(x) = a x^3 + b x^2 + c x + d$ (all symbols scalars, shape `()`):\n")
trials = 3
print(forward.render(trials=trials, rtol=1e-9))
print(central.render(trials=trials, rtol=1e-9))
print(text(
    "Both were evaluated at random $a, b, c, d, x$ and $h$ between {smallest:g} and $1$ "
    "({checks} comparisons passed). The forward difference is "
    "off by a term proportional to $h$; in the central difference the $h f''$ terms "
    "cancel and the error starts at $h^2$. For a general smooth $f$ the same terms lead, "
    "followed by higher powers of $h$.",
    smallest=given(SMALLEST_STEP),
    checks=checked(forward.checks + central.checks,
                   against=(len(forward.lines) - 1 + len(central.lines) - 1) * trials),
))
