"""The three-line cross-entropy gradient, derived by index calculus and checked line by line."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import Derivation, checked, given, text

B, V = 4, 6


def make_inputs(rng: np.random.Generator) -> dict:
    return {"Z": rng.standard_normal((B, V)) * 2.0, "y": rng.integers(0, V, size=B)}


def atomic_loss(Z, y):
    # The chapter's forward pass from the logits on, one atomic step at a time.
    N = Z - anp.max(Z, axis=1, keepdims=True)
    Q = anp.exp(N)
    r = anp.sum(Q, axis=1, keepdims=True) ** -1
    R = anp.log(Q * r)
    return -anp.mean(R[np.arange(Z.shape[0]), y])


def log_sum_exp_loss(Z, y):
    picked = Z[np.arange(Z.shape[0]), y]
    return -anp.mean(picked - anp.log(anp.sum(anp.exp(Z), axis=1)))


def softmax(Z):
    Q = np.exp(Z - Z.max(axis=1, keepdims=True))
    return Q / Q.sum(axis=1, keepdims=True)


def one_hot(y):
    return np.eye(V)[y]


value = Derivation(make_inputs)
value.step(
    r"L &= -\frac{1}{B}\sum_{b} \log P_{b, y_b} "
    r"= -\frac{1}{B}\sum_{b} \log \frac{e^{N_{b, y_b}}}{\sum_k e^{N_{bk}}}",
    lambda v: atomic_loss(v["Z"], v["y"]),
)
value.step(
    r"&= -\frac{1}{B}\sum_{b} \Big( Z_{b, y_b} - m_b - \log \sum_k e^{Z_{bk} - m_b} \Big)",
    lambda v: -np.mean(
        v["Z"][np.arange(B), v["y"]] - v["Z"].max(1)
        - np.log(np.exp(v["Z"] - v["Z"].max(1, keepdims=True)).sum(1))
    ),
)
value.step(
    r"&= -\frac{1}{B}\sum_{b} \Big( Z_{b, y_b} - \log \sum_k e^{Z_{bk}} \Big)",
    lambda v: log_sum_exp_loss(v["Z"], v["y"]),
)

gradient = Derivation(make_inputs)
gradient.step(
    r"\frac{\partial L}{\partial Z_{bj}} "
    r"&= -\frac{1}{B} \frac{\partial}{\partial Z_{bj}} \Big( Z_{b, y_b} - \log \sum_k e^{Z_{bk}} \Big)",
    lambda v: grad(atomic_loss)(v["Z"], v["y"]),
)
gradient.step(
    r"&= -\frac{1}{B} \Big( \mathbf{1}[j = y_b] - \frac{1}{\sum_k e^{Z_{bk}}}\, e^{Z_{bj}} \Big)",
    lambda v: -(one_hot(v["y"]) - np.exp(v["Z"]) / np.exp(v["Z"]).sum(1, keepdims=True)) / B,
)
gradient.step(
    r"&= \frac{1}{B} \big( P_{bj} - \mathbf{1}[j = y_b] \big)",
    lambda v: (softmax(v["Z"]) - one_hot(v["y"])) / B,
)

print(value.render())
print(gradient.render())
TRIALS = 3
checks = value.checks + gradient.checks
# One comparison per line after the first, per trial.
lines_compared = (len(value.lines) - 1) + (len(gradient.lines) - 1)
print(text(
    "Each line above was evaluated on {trials} random {shape} logit matrices with random "
    "labels and compared with the line before it ({checks} comparisons, `rtol=1e-10`). The "
    "first gradient line is `ad_core`'s gradient of the atomic forward pass, so the derivation "
    "is checked against the engine, not only against itself.",
    trials=given(TRIALS),
    shape=given((B, V)),
    checks=checked(checks, against=TRIALS * lines_compared),
))
