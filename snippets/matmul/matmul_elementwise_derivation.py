"""dh, dW2 and db2 for Z = h W2 + b2, derived one element at a time and checked line by line."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian
from bookkit import Derivation, checked, given, text

batch, hidden, vocab = 3, 4, 5  # distinct sizes, so no shape can be mistaken for another


def make_inputs(rng: np.random.Generator) -> dict:
    return {
        "h": rng.normal(size=(batch, hidden)),
        "W": rng.normal(size=(hidden, vocab)),
        "b": rng.normal(size=vocab),
        "dZ": rng.normal(size=(batch, vocab)),
    }


def output_layer(h, W, b):
    return anp.matmul(h, W) + b


# --8<-- [start:engine_line]
def chain_rule_through_engine_jacobian(v: dict, argnum: int) -> np.ndarray:
    """Σ over all outputs of dZ · ∂Z/∂(input entry), ∂Z from the engine's jacobian."""
    arguments = [v["h"], v["W"], v["b"]]
    full_jacobian = jacobian(output_layer, argnum)(*arguments)  # Z's axes, input's axes
    return np.tensordot(v["dZ"], full_jacobian, axes=2)


# --8<-- [end:engine_line]


def delta(a: int, b: int) -> float:
    return 1.0 if a == b else 0.0


dh = Derivation(make_inputs)
dh.step(
    r"\bar h_{bk} &= \sum_{b',j} \bar Z_{b'j}\, \frac{\partial Z_{b'j}}{\partial h_{bk}}",
    lambda v: chain_rule_through_engine_jacobian(v, 0),
)
dh.step(
    r"&= \sum_{b',j} \bar Z_{b'j}\, \delta_{b b'}\, W_{2,kj}",
    lambda v: np.array(
        [
            [
                sum(v["dZ"][b2, j] * delta(b, b2) * v["W"][k, j] for b2 in range(batch) for j in range(vocab))
                for k in range(hidden)
            ]
            for b in range(batch)
        ]
    ),
)
dh.step(
    r"&= \sum_{j} \bar Z_{bj}\, W_{2,kj}",
    lambda v: np.array(
        [
            [sum(v["dZ"][b, j] * v["W"][k, j] for j in range(vocab)) for k in range(hidden)]
            for b in range(batch)
        ]
    ),
)
dh.step(r"&= \big(\bar Z\, W_2^\top\big)_{bk}", lambda v: v["dZ"] @ v["W"].T)

dW = Derivation(make_inputs)
dW.step(
    r"\bar W_{2,kj} &= \sum_{b,j'} \bar Z_{bj'}\, \frac{\partial Z_{bj'}}{\partial W_{2,kj}}",
    lambda v: chain_rule_through_engine_jacobian(v, 1),
)
dW.step(
    r"&= \sum_{b,j'} \bar Z_{bj'}\, h_{bk}\, \delta_{j j'}",
    lambda v: np.array(
        [
            [
                sum(v["dZ"][b, j2] * v["h"][b, k] * delta(j, j2) for b in range(batch) for j2 in range(vocab))
                for j in range(vocab)
            ]
            for k in range(hidden)
        ]
    ),
)
dW.step(
    r"&= \sum_{b} h_{bk}\, \bar Z_{bj}",
    lambda v: np.array(
        [
            [sum(v["h"][b, k] * v["dZ"][b, j] for b in range(batch)) for j in range(vocab)]
            for k in range(hidden)
        ]
    ),
)
dW.step(r"&= \big(h^\top \bar Z\big)_{kj}", lambda v: v["h"].T @ v["dZ"])

db = Derivation(make_inputs)
db.step(
    r"\bar b_{2,j} &= \sum_{b,j'} \bar Z_{bj'}\, \frac{\partial Z_{bj'}}{\partial b_{2,j}}",
    lambda v: chain_rule_through_engine_jacobian(v, 2),
)
db.step(
    r"&= \sum_{b,j'} \bar Z_{bj'}\, \delta_{j j'}",
    lambda v: np.array(
        [
            sum(v["dZ"][b, j2] * delta(j, j2) for b in range(batch) for j2 in range(vocab))
            for j in range(vocab)
        ]
    ),
)
db.step(
    r"&= \sum_{b} \bar Z_{bj}",
    lambda v: np.array([sum(v["dZ"][b, j] for b in range(batch)) for j in range(vocab)]),
)
db.step(r"&= \big(\mathbf{1}_B^\top \bar Z\big)_{j}", lambda v: np.ones(batch) @ v["dZ"])

trials = 3
print(dh.render(trials=trials))
print(
    "$h_{bk}$ appears in $Z_{bj}$ for every class $j$ of its own row $b$, and in no other row, "
    "so the Kronecker delta collapses the sum over $b'$. The weight $W_{2,kj}$ is shared by every "
    "example, so its gradient sums over the batch:"
)
print()
print(dW.render(trials=trials))
print("The bias is added to every row: a broadcast, so its gradient is the batch sum.")
print()
print(db.render(trials=trials))
derivations = (dh, dW, db)
print(
    text(
        "Each first line was computed from the engine's own `jacobian` of $Z = hW_2 + b_2$, each later "
        "line by plain loops or matrix products, with $B = {B}$, $H = {H}$, $V = {V}$; "
        "{total} line-to-line comparisons on random float64 inputs passed before this was printed.",
        B=given(batch),
        H=given(hidden),
        V=given(vocab),
        # One comparison per pair of consecutive lines, per draw.
        total=checked(
            sum(d.checks for d in derivations), against=sum((len(d.lines) - 1) * trials for d in derivations)
        ),
    )
)
