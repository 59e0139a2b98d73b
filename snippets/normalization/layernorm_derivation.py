"""LayerNorm's backward pass as one formula, derived by index calculus and checked line by line."""

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


def stats(v: dict) -> tuple:
    """sigma_i = sqrt(var_i + eps) of shape (B, 1) and xhat of shape (B, H), by plain NumPy."""
    centred = v["x"] - v["x"].mean(axis=1, keepdims=True)
    sigma = np.sqrt((centred**2).mean(axis=1, keepdims=True) + norms.EPS)
    return centred, sigma, centred / sigma


def loss(x, gain, bias, g):
    return anp.sum(g * norms.layernorm(x, gain, bias))


def jacobian_contracted(v: dict) -> np.ndarray:
    """Build the (B, H, H) tensor d xhat[i, k] / d x[i, j] entry by entry and contract it."""
    centred, sigma, _ = stats(v)
    delta = np.eye(H)[None]  # delta[0, k, j]
    d_xhat = (delta - 1 / H) / sigma[:, :, None] - (
        centred[:, :, None] * centred[:, None, :] / (H * sigma[:, :, None] ** 3)
    )  # [i, k, j]
    return np.einsum("ik,ikj->ij", v["g"] * v["gain"], d_xhat)


dx = Derivation(make_inputs)
dx.step(
    r"\frac{\partial L}{\partial x_{ij}} &= \sum_k \hat g_{ik}\, "
    r"\frac{\partial \hat x_{ik}}{\partial x_{ij}}, \qquad \hat g_{ik} = g_{ik}\, \gamma_k",
    lambda v: grad(loss)(v["x"], v["gain"], v["bias"], v["g"]),
)
dx.step(
    r"&= \sum_k \hat g_{ik} \bigg[ \frac{\delta_{kj} - \frac{1}{H}}{\sigma_i}"
    r" - \frac{(x_{ik} - \mu_i)(x_{ij} - \mu_i)}{H\, \sigma_i^3} \bigg]",
    jacobian_contracted,
)
dx.step(
    r"&= \frac{1}{\sigma_i} \bigg[ \hat g_{ij} - \frac{1}{H} \sum_k \hat g_{ik}"
    r" - \frac{\hat x_{ij}}{H} \sum_k \hat g_{ik}\, \hat x_{ik} \bigg]",
    lambda v: 1 / stats(v)[1] * (
        v["g"] * v["gain"] - (v["g"] * v["gain"]).sum(1, keepdims=True) / H
        - stats(v)[2] / H * (v["g"] * v["gain"] * stats(v)[2]).sum(1, keepdims=True)
    ),
)
dx.step(
    r"&= \frac{1}{H \sigma_i} \bigg[ H\, \hat g_{ij} - \sum_k \hat g_{ik}"
    r" - \hat x_{ij} \sum_k \hat g_{ik}\, \hat x_{ik} \bigg]",
    lambda v: norms.layernorm_backward(v["g"], v["x"], v["gain"])[0],
)

dgain = Derivation(make_inputs)
dgain.step(
    r"\frac{\partial L}{\partial \gamma_j} &= \sum_i g_{ij}\, \frac{\partial y_{ij}}{\partial \gamma_j}",
    lambda v: grad(loss, 1)(v["x"], v["gain"], v["bias"], v["g"]),
)
dgain.step(r"&= \sum_i g_{ij}\, \hat x_{ij}",
           lambda v: norms.layernorm_backward(v["g"], v["x"], v["gain"])[1])

dbias = Derivation(make_inputs)
dbias.step(
    r"\frac{\partial L}{\partial \beta_j} &= \sum_i g_{ij}\, \frac{\partial y_{ij}}{\partial \beta_j}",
    lambda v: grad(loss, 2)(v["x"], v["gain"], v["bias"], v["g"]),
)
dbias.step(r"&= \sum_i g_{ij}", lambda v: norms.layernorm_backward(v["g"], v["x"], v["gain"])[2])

print(dx.render(trials=TRIALS))
print(dgain.render(trials=TRIALS))
print(dbias.render(trials=TRIALS))
derivations = (dx, dgain, dbias)
print(text(
    "Every line was evaluated on {trials} random float64 inputs with $B = {B}$ examples and "
    "$H = {H}$ features and compared with the line before it ({checks} comparisons, "
    "`rtol=1e-10`). The first line of each is `ad_core`'s gradient of the forward pass; the "
    "second line of the first builds the whole `(B, H, H)` tensor $\\partial \\hat x_{{ik}} / "
    "\\partial x_{{ij}}$ and contracts it; the last line of each calls the code below.",
    trials=given(TRIALS), B=given(B), H=given(H),
    # one comparison per line after the first, per trial
    checks=checked(sum(d.checks for d in derivations),
                   against=TRIALS * sum(len(d.lines) - 1 for d in derivations)),
))
