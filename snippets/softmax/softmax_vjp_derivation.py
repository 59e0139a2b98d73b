"""Softmax's VJP p ⊙ (g - ⟨g, p⟩), derived row by row and checked line by line on a batch."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from ad_core.recorder import trace_graph
from bookkit import (
    Derivation,
    assert_shape_then_close,
    central_differences,
    checked,
    given,
    load_snippet_module,
    text,
)

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))
B, V = 3, 5  # distinct sizes, so a per-row quantity of shape (B, 1) cannot pass for (B, V)


def make_inputs(rng: np.random.Generator) -> dict:
    return {"z": 2.0 * rng.standard_normal((B, V)), "g": rng.standard_normal((B, V))}


def engine_vjp(v: dict) -> np.ndarray:
    vjp, _ = make_vjp(helpers.softmax)(v["z"])
    return vjp(v["g"])


def p_of(v: dict) -> np.ndarray:
    return helpers.softmax_np(v["z"])


derivation = Derivation(make_inputs)
derivation.step(r"\bar z_{bj} &= \sum_i \bar p_{bi}\, \frac{\partial p_{bi}}{\partial z_{bj}}", engine_vjp)
derivation.step(
    r"&= \sum_i g_{bi}\, \big(p_{bi}\,\delta_{ij} - p_{bi}\, p_{bj}\big)",
    lambda v: np.array([
        [sum(v["g"][b, i] * (p_of(v)[b, i] * (i == j) - p_of(v)[b, i] * p_of(v)[b, j]) for i in range(V))
         for j in range(V)]
        for b in range(B)
    ]),
)
derivation.step(
    r"&= p_{bj}\, g_{bj} - p_{bj} \sum_i g_{bi}\, p_{bi}",
    lambda v: p_of(v) * v["g"] - p_of(v) * (v["g"] * p_of(v)).sum(axis=1, keepdims=True),
)
# --8<-- [start:vjp]
def softmax_vjp(p, g):
    """p ⊙ (g - ⟨g, p⟩) per row: p and g (B, V), the row dot product kept as (B, 1)."""
    return p * (g - np.sum(g * p, axis=1, keepdims=True))
# --8<-- [end:vjp]


derivation.step(r"&= \Big(p_b \odot \big(g_b - \langle g_b, p_b\rangle \mathbf{1}\big)\Big)_j",
                lambda v: softmax_vjp(p_of(v), v["g"]))

# The page says the engine has no softmax primitive: the softmax is a chain of other rules.
assert not hasattr(anp, "softmax")
# The primitives the engine traced for the softmax, in the order it first met them.
graph = trace_graph(helpers.softmax, np.ones((B, V)))
primitives = tuple(dict.fromkeys(n.primitive for n in graph.nodes if not n.is_root))

TRIALS = 3
print(derivation.render(trials=TRIALS))

# The last line against central differences of ⟨g, softmax(z)⟩, an oracle outside the engine.
rng = np.random.default_rng(18)
sample = make_inputs(rng)
by_differences = central_differences(
    lambda z: float(np.sum(sample["g"] * helpers.softmax_np(z))), sample["z"]
)
by_formula = softmax_vjp(p_of(sample), sample["g"])
assert_shape_then_close(by_formula, by_differences, rtol=1e-6, atol=1e-9)
largest = float(np.abs(by_formula - by_differences).max())
print(text(
    "Each line was evaluated on {trials} random batches of logits of shape {shape} with a random "
    "upstream $g$ of the same shape and compared with the line before ({checks} comparisons, "
    "`rtol=1e-10`); the first line is the engine's `make_vjp` of the softmax built from the "
    "primitives {primitives}. Central differences of $\\langle g, "
    "\\operatorname{{softmax}}(z)\\rangle$ agree with the last line to {largest}. The formula never "
    "builds the {V}-by-{V} Jacobian of a row: one elementwise product and one row sum.",
    trials=given(TRIALS),
    shape=given((B, V)),
    checks=checked(derivation.checks, against=TRIALS * (len(derivation.lines) - 1)),
    largest=checked(largest, against=0.0, atol=1e-9, shown_as=lambda x: f"{x:.0e}"),
    V=given(V),
    primitives=checked(primitives, against=("max", "subtract", "exp", "sum", "divide"),
                       shown_as=lambda names: ", ".join(f"`{n}`" for n in names)),
))
