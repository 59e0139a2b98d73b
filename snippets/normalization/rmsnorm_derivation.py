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
