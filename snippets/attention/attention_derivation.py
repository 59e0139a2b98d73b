"""The gradients of V, of the scores S, of Q and of K, each derived in index form and checked
line by line on random (B, H, T, d) inputs with a causal mask; each first line is the engine's."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from bookkit import Derivation, checked, given, load_snippet_module, text

attn = load_snippet_module(Path(__file__).with_name("_attention.py"))


def P(v):
    return attn.forward_values(v["Q"], v["K"], v["V"], v["M"])["P"]


def scores(v):
    return attn.forward_values(v["Q"], v["K"], v["V"], v["M"])["S"]


def dP(v):
    return np.einsum("bhic,bhjc->bhij", v["dO"], v["V"])


def dS(v):
    p = P(v)
    return p * (dP(v) - np.sum(dP(v) * p, axis=-1, keepdims=True))


def softmax_jacobian_sum(v):
    """Σ_k dP_ik ∂P_ik/∂S_ij with the Jacobian entry P_ik (δ_kj - P_ij) formed in full."""
    p = P(v)
    jacobian_entries = p[..., :, :, None] * (eye[None, None, None] - p[:, :, :, None, :])  # (B, H, i, k, j)
    return np.einsum("bhik,bhikj->bhij", dP(v), jacobian_entries)


root_d = np.sqrt(attn.WIDTH)
eye = np.eye(attn.LENGTH)

dV = Derivation(attn.make_inputs)
dV.step(
    r"\bar V_{jc} &= \textstyle\sum_{i,c'} \bar O_{ic'}\, \partial O_{ic'} / \partial V_{jc}"
    r" \quad\text{(the engine's VJP)}",
    lambda v: attn.engine_gradients(**v)["dV"],
)
dV.step(r"&= \textstyle\sum_{i} P_{ij}\, \bar O_{ic}", lambda v: np.einsum("bhij,bhic->bhjc", P(v), v["dO"]))
dV.step(r"&= \big(P^\top \bar O\big)_{jc}", lambda v: np.swapaxes(P(v), -1, -2) @ v["dO"])

dSc = Derivation(attn.make_inputs)
dSc.step(
    r"\bar S_{ij} &= \textstyle\sum_{c} \bar O_{ic}\, \partial O_{ic} / \partial S_{ij}"
    r" \quad\text{(the engine's VJP of } S \mapsto \operatorname{softmax}(S)V)",
    lambda v: make_vjp(lambda s: attn.softmax_last_axis(s) @ v["V"])(scores(v))[0](v["dO"]),
)
dSc.step(
    r"&= \textstyle\sum_{k} \bar P_{ik}\, P_{ik} (\delta_{kj} - P_{ij}),"
    r" \quad \bar P_{ik} = \textstyle\sum_c \bar O_{ic} V_{kc}",
    softmax_jacobian_sum,
)
dSc.step(
    r"&= P_{ij}\big(\bar P_{ij} - \textstyle\sum_k \bar P_{ik} P_{ik}\big)",
    lambda v: P(v) * (dP(v) - np.einsum("bhik,bhik->bhi", dP(v), P(v))[..., None]),
)

dQ = Derivation(attn.make_inputs)
dQ.step(
    r"\bar Q_{ic} &= \textstyle\sum_{i',j} \bar S_{i'j}\, \partial S_{i'j} / \partial Q_{ic}"
    r" \quad\text{(the engine's VJP)}",
    lambda v: attn.engine_gradients(**v)["dQ"],
)
dQ.step(
    r"&= \textstyle\sum_{j} \bar S_{ij}\, K_{jc} / \sqrt d",
    lambda v: np.einsum("bhij,bhjc->bhic", dS(v), v["K"]) / root_d,
)
dQ.step(r"&= \big(\bar S K\big)_{ic} / \sqrt d", lambda v: dS(v) @ v["K"] / root_d)

dK = Derivation(attn.make_inputs)
dK.step(
    r"\bar K_{jc} &= \textstyle\sum_{i,j'} \bar S_{ij'}\, \partial S_{ij'} / \partial K_{jc}"
    r" \quad\text{(the engine's VJP)}",
    lambda v: attn.engine_gradients(**v)["dK"],
)
dK.step(
    r"&= \textstyle\sum_{i} \bar S_{ij}\, Q_{ic} / \sqrt d",
    lambda v: np.einsum("bhij,bhic->bhjc", dS(v), v["Q"]) / root_d,
)
dK.step(r"&= \big(\bar S^\top Q\big)_{jc} / \sqrt d", lambda v: np.swapaxes(dS(v), -1, -2) @ v["Q"] / root_d)

trials = 3
print(
    "**The values.** $O_{ic} = \\sum_j P_{ij} V_{jc}$, so $V_{jc}$ reaches every query $i$ "
    "through its weight $P_{ij}$:"
)
print()
print(dV.render(trials=trials))
print("**The scores.** $S_{ij}$ moves only row $i$ of $P$, and softmax's VJP acts on that row:")
print()
print(dSc.render(trials=trials))
print(
    "**The queries and the keys.** $S_{ij} = \\sum_c Q_{ic} K_{jc} / \\sqrt d$ is a matrix product, "
    "so its VJP is the one of [Matrix multiplication](matmul.md), scaled:"
)
print()
print(dQ.render(trials=trials))
print(dK.render(trials=trials))
derivations = (dV, dSc, dQ, dK)
print(
    text(
        "Every index is per batch $b$ and head $h$, which the formulas leave out: no sum ever runs "
        "over them, because no entry of one head touches another head. {total} line-to-line "
        "comparisons on random float64 inputs of shape {shape}, with the causal mask, passed "
        "before this was printed.",
        total=checked(
            sum(d.checks for d in derivations), against=sum((len(d.lines) - 1) * trials for d in derivations)
        ),
        shape=given((attn.BATCH, attn.HEADS, attn.LENGTH, attn.WIDTH)),
    )
)
