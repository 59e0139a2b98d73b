"""RMSNorm's backward pass, derived and checked like LayerNorm's, and the term it does not have."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import Derivation, checked, given, load_snippet_module, text

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
B, H = 4, 6
TRIALS = 3


def make_inputs(rng: np.random.Generator) -> dict:
    return norms.random_inputs(rng, B, H)


def rms(v: dict) -> np.ndarray:
    """rho_i = sqrt(mean_k x_ik^2 + eps), shape (B, 1), by plain NumPy."""
    return np.sqrt((v["x"] ** 2).mean(axis=1, keepdims=True) + norms.EPS)


def loss(x, gain, g):
    return anp.sum(g * norms.rmsnorm(x, gain))


def jacobian_contracted(v: dict) -> np.ndarray:
    x, rho = v["x"], rms(v)
    d_xhat = np.eye(H)[None] / rho[:, :, None] - x[:, :, None] * x[:, None, :] / (
        H * rho[:, :, None] ** 3
    )  # d xhat[i, k] / d x[i, j], shape (B, H, H)
    return np.einsum("ik,ikj->ij", v["g"] * v["gain"], d_xhat)


dx = Derivation(make_inputs)
dx.step(
    r"\frac{\partial L}{\partial x_{ij}} &= \sum_k \hat g_{ik}\, "
    r"\frac{\partial \hat x_{ik}}{\partial x_{ij}}, \qquad \hat x_{ik} = \frac{x_{ik}}{\rho_i}",
    lambda v: grad(loss)(v["x"], v["gain"], v["g"]),
)
dx.step(
    r"&= \sum_k \hat g_{ik} \bigg[ \frac{\delta_{kj}}{\rho_i} - \frac{x_{ik}\, x_{ij}}{H\, \rho_i^3} \bigg]",
    jacobian_contracted,
)
dx.step(
    r"&= \frac{1}{H \rho_i} \bigg[ H\, \hat g_{ij} - \hat x_{ij} \sum_k \hat g_{ik}\, \hat x_{ik} \bigg]",
    lambda v: norms.rmsnorm_backward(v["g"], v["x"], v["gain"])[0],
)
dgain = Derivation(make_inputs)
dgain.step(
    r"\frac{\partial L}{\partial \gamma_j} &= \sum_i g_{ij}\, \frac{\partial y_{ij}}{\partial \gamma_j}",
    lambda v: grad(loss, 1)(v["x"], v["gain"], v["g"]),
)
dgain.step(r"&= \sum_i g_{ij}\, \hat x_{ij}", lambda v: norms.rmsnorm_backward(v["g"], v["x"], v["gain"])[1])

print(dx.render(trials=TRIALS))
print(dgain.render(trials=TRIALS))
print(text(
    "Checked like LayerNorm's: {trials} random float64 inputs of shape {shape}, {checks} "
    "comparisons at `rtol=1e-10`, starting from `ad_core`'s gradient.",
    trials=given(TRIALS), shape=given((B, H)),
    checks=checked(dx.checks + dgain.checks,
                   against=TRIALS * (len(dx.lines) - 1 + len(dgain.lines) - 1)),
))
print()

# --- What disappears: on rows with mean zero the two layers compute the same output, and their
# gradients still differ, by exactly LayerNorm's mean term.
v = make_inputs(np.random.default_rng(7))
centred = v["x"] - v["x"].mean(axis=1, keepdims=True)
same_output = np.max(np.abs(norms.layernorm(centred, v["gain"], 0.0) - norms.rmsnorm(centred, v["gain"])))
ln_dx = grad(lambda x: anp.sum(v["g"] * norms.layernorm(x, v["gain"], 0.0)))(centred)
rms_dx = grad(lambda x: anp.sum(v["g"] * norms.rmsnorm(x, v["gain"])))(centred)
ghat = v["g"] * v["gain"]
mean_term = -ghat.sum(axis=1, keepdims=True) / (H * rms({"x": centred}))  # broadcast over j
print(text(
    "On rows whose mean is already zero the two layers compute the same output (largest "
    "difference {same}), yet their input gradients differ: the largest difference is {gap}. "
    "The difference is LayerNorm's mean term $-\\frac{{1}}{{H \\sigma_i}} \\sum_k \\hat g_{{ik}}$, "
    "the same for every $j$ of a row (it matches the engine's difference to {match}). "
    "LayerNorm removes the mean whatever the input, so its gradient has no component along "
    "$(1, \\dots, 1)$ in each row: its row sums are {ln_sums} at most, against {rms_sums} for "
    "RMSNorm.",
    same=checked(float(same_output), against=0.0, atol=1e-12, shown_as=lambda s: f"{s:.1e}"),
    gap=checked(float(np.max(np.abs(ln_dx - rms_dx))), against=float(np.max(np.abs(mean_term))),
                rtol=1e-9, shown_as=lambda s: f"{s:.4f}"),
    match=checked(float(np.max(np.abs((ln_dx - rms_dx) - mean_term))), against=0.0, atol=1e-12,
                  shown_as=lambda s: f"{s:.1e}"),
    ln_sums=checked(float(np.max(np.abs(ln_dx.sum(axis=1)))), against=0.0, atol=1e-12,
                    shown_as=lambda s: f"{s:.1e}"),
    rms_sums=checked(float(np.max(np.abs(rms_dx.sum(axis=1)))),
                     against=float(np.max(np.abs(
                         norms.rmsnorm_backward(v["g"], centred, v["gain"])[0].sum(1)))),
                     rtol=1e-9, shown_as=lambda s: f"{s:.4f}"),
))
