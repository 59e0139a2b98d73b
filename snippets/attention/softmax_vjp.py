"""Softmax's VJP, one row: the engine's Jacobian, then diag(p) - p pᵀ, then the fused formula."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian
from bookkit import Derivation, checked, given, text

width = 6


def make_inputs(rng: np.random.Generator) -> dict:
    return {"s": rng.normal(size=width), "g": rng.normal(size=width)}


def softmax(s):
    e = anp.exp(s - anp.max(s))
    return e / anp.sum(e)


def p_of(v):
    e = np.exp(v["s"] - v["s"].max())
    return e / e.sum()


vjp = Derivation(make_inputs)
vjp.step(
    r"\bar s &= J^\top g, \quad J = \partial p / \partial s \text{ (the engine's jacobian)}",
    lambda v: jacobian(softmax)(v["s"]).T @ v["g"],
)
vjp.step(
    r"&= \big(\operatorname{diag}(p) - p p^\top\big) g",
    lambda v: (np.diag(p_of(v)) - np.outer(p_of(v), p_of(v))) @ v["g"],
)
vjp.step(
    r"&= p \odot g - p\, \langle g, p \rangle", lambda v: p_of(v) * v["g"] - p_of(v) * (v["g"] @ p_of(v))
)
# --8<-- [start:fused]
vjp.step(
    r"&= p \odot \big(g - \langle g, p \rangle\big)", lambda v: p_of(v) * (v["g"] - np.dot(v["g"], p_of(v)))
)
# --8<-- [end:fused]
trials = 3
print(vjp.render(trials=trials))
print(
    text(
        "Each line was evaluated on {trials} random rows of length {n} and equals the line before "
        "it ({checks} comparisons). The Jacobian is symmetric, so $J^\\top = J$; the last line never "
        "forms it: one dot product per row and one elementwise product.",
        trials=given(trials),
        n=given(width),
        checks=checked(vjp.checks, against=(len(vjp.lines) - 1) * trials),
    )
)

# The chapter's link to the fused cross-entropy gradient: with g = dL/dp = -e_y / p_y for
# L = -log p_y, the fused formula is p - e_y (with g = dL/dlog p it would not be).
row = make_inputs(np.random.default_rng(3))
p_row, label = p_of(row), 2
one_hot = np.eye(width)[label]
checked(p_row * (-one_hot / p_row[label] - np.dot(-one_hot / p_row[label], p_row)), against=p_row - one_hot)
assert not np.allclose(p_row * (-one_hot - np.dot(-one_hot, p_row)), p_row - one_hot)
