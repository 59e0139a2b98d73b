"""The bias gradient under a sum loss and a mean loss: engine first, formula second, checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import Derivation, checked, given, text

m, n = 6, 4


def make_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.normal(size=(m, n)), "b": rng.normal(size=n)}


def output(v: dict) -> np.ndarray:
    return v["x"] + v["b"]


sum_loss = Derivation(make_inputs)
sum_loss.step(
    r"\ell_{\text{sum}} = \sum_{i,j} Y_{ij}^2 \;\Rightarrow\; \bar b_j "
    r"&= \frac{\partial \ell_{\text{sum}}}{\partial b_j}",
    lambda v: grad(lambda b: anp.sum((v["x"] + b) ** 2))(v["b"]),
)
sum_loss.step(r"&= 2 \sum_i Y_{ij}", lambda v: 2 * output(v).sum(axis=0))

mean_loss = Derivation(make_inputs)
mean_loss.step(
    r"\ell_{\text{mean}} = \frac{1}{mn}\sum_{i,j} Y_{ij}^2 \;\Rightarrow\; \bar b_j "
    r"&= \frac{\partial \ell_{\text{mean}}}{\partial b_j}",
    lambda v: grad(lambda b: anp.mean((v["x"] + b) ** 2))(v["b"]),
)
mean_loss.step(r"&= \frac{2}{mn} \sum_i Y_{ij}", lambda v: 2 * output(v).sum(axis=0) / (m * n))

trials = 3
print(sum_loss.render(trials=trials))
print(mean_loss.render(trials=trials))
# Each derivation compares each line with the one above it once per draw: the draws it made are
# its comparisons divided by its line pairs.
draws_each = {d.checks / (len(d.lines) - 1) for d in (sum_loss, mean_loss)}
print(
    text(
        "In each, the first line is the engine's gradient and the second the formula; the build "
        "compared them on {draws} random draws each ($m = {m}$, $n = {n}$).",
        draws=checked(sorted(draws_each), against=[trials], shown_as=lambda v: str(int(v[0]))),
        m=given(m),
        n=given(n),
    )
)
