"""Log-sum-exp's VJP is the softmax; log-softmax's Jacobian is I - 1 pᵀ and its VJP g - p Σg."""

from pathlib import Path

import numpy as np

from ad_core import jacobian, make_vjp
from bookkit import (
    Derivation,
    assert_shape_then_close,
    central_differences,
    checked,
    given,
    latex_matrix,
    load_snippet_module,
    text,
)

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))
B, V = 3, 5
TRIALS = 3


def make_inputs(rng: np.random.Generator) -> dict:
    return {
        "z": 2.0 * rng.standard_normal((B, V)),
        "g": rng.standard_normal((B, V)),     # upstream of log-softmax, one per entry
        "u": rng.standard_normal(B),          # upstream of log-sum-exp, one per row
    }


def p_of(v: dict) -> np.ndarray:
    return helpers.softmax_np(v["z"])


def engine_vjp(fun, v: dict, upstream: str) -> np.ndarray:
    vjp, _ = make_vjp(fun)(v["z"])
    return vjp(v[upstream])


# --8<-- [start:vjps]
def logsumexp_vjp(p, u):
    """u (B,) → u_b p_b: the gradient of log Σ e^z is the softmax."""
    return u[:, None] * p


def log_softmax_vjp(p, g):
    """g - p Σ_i g_i per row: g (B, V), the row sum kept as (B, 1)."""
    return g - p * np.sum(g, axis=1, keepdims=True)
# --8<-- [end:vjps]


lse = Derivation(make_inputs)
lse.step(r"\bar z_{bj} &= u_b\, \frac{\partial}{\partial z_{bj}} \log \sum_k e^{z_{bk}}",
         lambda v: engine_vjp(helpers.logsumexp, v, "u"))
lse.step(r"&= u_b\, \frac{e^{z_{bj}}}{\sum_k e^{z_{bk}}}",
         lambda v: v["u"][:, None] * np.exp(v["z"]) / np.exp(v["z"]).sum(axis=1, keepdims=True))
lse.step(r"&= u_b\, p_{bj}", lambda v: logsumexp_vjp(p_of(v), v["u"]))

log_sm = Derivation(make_inputs)
log_sm.step(r"\bar z_{bj} &= \sum_i g_{bi}\, \frac{\partial}{\partial z_{bj}}"
            r"\Big(z_{bi} - \log \sum_k e^{z_{bk}}\Big)",
            lambda v: engine_vjp(helpers.log_softmax, v, "g"))
log_sm.step(r"&= \sum_i g_{bi}\, \big(\delta_{ij} - p_{bj}\big)",
            lambda v: np.array([[sum(v["g"][b, i] * ((i == j) - p_of(v)[b, j]) for i in range(V))
                                 for j in range(V)] for b in range(B)]))
log_sm.step(r"&= g_{bj} - p_{bj} \sum_i g_{bi}", lambda v: log_softmax_vjp(p_of(v), v["g"]))

# One row's Jacobian, from the engine, against I - 1 pᵀ.
z_row = np.array([1.0, 2.0, 0.5])
p_row = helpers.softmax_np(z_row)
J_engine = jacobian(helpers.log_softmax)(z_row)
J_formula = np.eye(3) - np.outer(np.ones(3), p_row)

# Central differences for both VJPs on one sample, an oracle outside the engine.
sample = make_inputs(np.random.default_rng(180))


def np_log_softmax(z):
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


assert_shape_then_close(
    log_softmax_vjp(p_of(sample), sample["g"]),
    central_differences(lambda z: float(np.sum(sample["g"] * np_log_softmax(z))), sample["z"]),
    rtol=1e-6, atol=1e-8,
)
assert_shape_then_close(
    logsumexp_vjp(p_of(sample), sample["u"]),
    central_differences(lambda z: float(sample["u"] @ np.log(np.exp(z).sum(axis=1))), sample["z"]),
    rtol=1e-6, atol=1e-8,
)

print(text("**Log-sum-exp.** With an upstream $u$ of shape {u}, one number per row:", u=given((B,))))
print()
print(lse.render(trials=TRIALS))
print(text(
    "**Log-softmax.** For the example's row the engine's `jacobian` gives\n\n"
    "$$\nJ = {J} = I - \\mathbf{{1}} p^\\top,\n$$\n\n"
    "every row the same $-p$ plus one on the diagonal. Its VJP, with $g$ of shape {g}:",
    J=latex_matrix(checked(J_engine, against=J_formula, rtol=1e-14, atol=1e-16)),
    g=given((B, V)),
))
print()
print(log_sm.render(trials=TRIALS))
print(text(
    "{checks} line-to-line comparisons on random float64 batches passed (`rtol=1e-10`), each "
    "derivation starting from the engine's `make_vjp`, and central differences agree with both "
    "last lines to `rtol=1e-6`.",
    checks=checked(lse.checks + log_sm.checks,
                   against=TRIALS * (len(lse.lines) - 1 + len(log_sm.lines) - 1)),
))
