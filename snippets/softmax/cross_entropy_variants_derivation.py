"""The gradient of the general cross-entropy, r_b (p_b - q_b) / Σ r, derived and checked line by line."""

from pathlib import Path

import numpy as np

from ad_core import grad
from bookkit import Derivation, checked, given, load_snippet_module, text

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))
B, V, IGNORE = 6, 4, -100
TRIALS = 3


def make_inputs(rng: np.random.Generator) -> dict:
    labels = rng.integers(0, V, size=B)
    labels[rng.permutation(B)[:2]] = IGNORE              # two ignored rows in every trial
    return {"z": 2.0 * rng.standard_normal((B, V)), "y": labels,
            "w": rng.uniform(0.5, 2.0, V), "eps": rng.uniform(0.0, 0.3)}


def parts(v: dict):
    kept = v["y"] != IGNORE
    safe = np.where(kept, v["y"], 0)
    r = v["w"][safe] * kept                                           # (B,)
    q = (1 - v["eps"]) * np.eye(V)[safe] + v["eps"] / V               # (B, V)
    return r, q, helpers.softmax_np(v["z"])


def engine(v: dict) -> np.ndarray:
    return grad(helpers.cross_entropy)(v["z"], v["y"], label_smoothing=v["eps"], weight=v["w"],
                                       ignore_index=IGNORE)


def index_form(v: dict) -> np.ndarray:
    r, q, p = parts(v)
    return -r[:, None] * (q - p * q.sum(axis=1, keepdims=True)) / r.sum()


def closed_form(v: dict) -> np.ndarray:
    r, q, p = parts(v)
    return r[:, None] * (p - q) / r.sum()


derivation = Derivation(make_inputs)
derivation.step(
    r"\frac{\partial L}{\partial z_{bj}} &= -\frac{1}{\sum_{b'} r_{b'}} \frac{\partial}{\partial z_{bj}}"
    r" \sum_{b'} r_{b'} \sum_k q_{b'k} \Big(z_{b'k} - \log \sum_i e^{z_{b'i}}\Big)", engine)
derivation.step(r"&= -\frac{r_b}{\sum_{b'} r_{b'}} \Big(q_{bj} - p_{bj} \sum_k q_{bk}\Big)", index_form)
derivation.step(r"&= \frac{r_b}{\sum_{b'} r_{b'}} \big(p_{bj} - q_{bj}\big)", closed_form)
print(derivation.render(trials=TRIALS))
print(text(
    "The last step uses $\\sum_k q_{{bk}} = 1$: a smoothed target is still a distribution. "
    "Checked on {trials} random batches of shape {shape}, each with random class weights, a random "
    "smoothing $\\varepsilon$ and {ignored} ignored rows ({checks} comparisons, `rtol=1e-10`); the "
    "first line is the engine's `grad` of `cross_entropy` above.",
    trials=given(TRIALS), shape=given((B, V)), ignored=given(2),
    checks=checked(derivation.checks, against=TRIALS * (len(derivation.lines) - 1)),
))
