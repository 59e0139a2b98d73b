"""BatchNorm's input gradient as one formula, derived by index calculus and checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import Derivation, checked, given, load_snippet_module, text

model = load_snippet_module("snippets/network_by_hand/_model.py")
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
BN_EPS = model.BN_EPS
batchnorm_backward_fused = by_hand.batchnorm_backward_fused

n, H = 8, 5


def make_inputs(rng: np.random.Generator) -> dict:
    return {
        "x": rng.standard_normal((n, H)) * 2.0 + 0.5,
        "gamma": rng.standard_normal((1, H)) * 0.1 + 1.0,
        "beta": rng.standard_normal((1, H)) * 0.1,
        "g": rng.standard_normal((n, H)),      # upstream gradient dL/d(hpreact)
    }


def batchnorm(x, gamma, beta):
    mean = anp.sum(x, axis=0, keepdims=True) / n
    diff = x - mean
    var = anp.sum(diff**2, axis=0, keepdims=True) / (n - 1)
    return gamma * diff * (var + BN_EPS) ** -0.5 + beta


def stats(v: dict) -> tuple:
    diff = v["x"] - v["x"].mean(0, keepdims=True)
    s = (diff**2).sum(0, keepdims=True) / (n - 1) + BN_EPS      # sigma^2 + eps
    return diff, s, diff * s**-0.5


variance = Derivation(make_inputs)
variance.step(
    r"\frac{\partial \sigma_j^2}{\partial x_{ij}} "
    r"&= \frac{2}{n-1} \sum_k (x_{kj} - \mu_j) \Big( \delta_{ki} - \frac{1}{n} \Big)",
    lambda v: grad(lambda x: anp.sum(anp.sum((x - anp.sum(x, axis=0) / n) ** 2, axis=0)
                                     / (n - 1)))(v["x"]),
)
variance.step(
    r"&= \frac{2}{n-1} \Big( (x_{ij} - \mu_j) - \frac{1}{n} \sum_k (x_{kj} - \mu_j) \Big)",
    lambda v: 2 / (n - 1) * (stats(v)[0] - stats(v)[0].sum(0, keepdims=True) / n),
)
variance.step(
    r"&= \frac{2}{n-1} (x_{ij} - \mu_j)",
    lambda v: 2 / (n - 1) * stats(v)[0],
)


def jacobian_form(v: dict) -> np.ndarray:
    diff, s, _ = stats(v)
    delta = np.eye(n)[:, :, None]                               # delta[k, i, 0]
    d_xhat = (delta - 1 / n) * s[None] ** -0.5 - diff[:, None, :] * diff[None, :, :] / (
        (n - 1) * s[None] ** 1.5
    )                                                           # d xhat[k, j] / d x[i, j]
    return v["gamma"] * np.einsum("kj,kij->ij", v["g"], d_xhat)


gradient = Derivation(make_inputs)
gradient.step(
    r"\frac{\partial L}{\partial x_{ij}} "
    r"&= \sum_k g_{kj}\, \gamma_j\, \frac{\partial \hat x_{kj}}{\partial x_{ij}}",
    lambda v: grad(lambda x: anp.sum(v["g"] * batchnorm(x, v["gamma"], v["beta"])))(v["x"]),
)
gradient.step(
    r"&= \gamma_j \sum_k g_{kj} \bigg[ \frac{\delta_{ki} - \frac{1}{n}}{\sqrt{\sigma_j^2 + \epsilon}}"
    r" - \frac{(x_{kj} - \mu_j)(x_{ij} - \mu_j)}{(n-1)\,(\sigma_j^2 + \epsilon)^{3/2}} \bigg]",
    jacobian_form,
)
gradient.step(
    r"&= \frac{\gamma_j}{\sqrt{\sigma_j^2 + \epsilon}} \bigg[ g_{ij} - \frac{1}{n} \sum_k g_{kj}"
    r" - \frac{\hat x_{ij}}{n-1} \sum_k g_{kj}\, \hat x_{kj} \bigg]",
    lambda v: v["gamma"] * stats(v)[1] ** -0.5 * (
        v["g"] - v["g"].sum(0, keepdims=True) / n
        - stats(v)[2] / (n - 1) * (v["g"] * stats(v)[2]).sum(0, keepdims=True)
    ),
)
gradient.step(
    r"&= \frac{\gamma_j}{n \sqrt{\sigma_j^2 + \epsilon}} \bigg[ n\, g_{ij} - \sum_k g_{kj}"
    r" - \frac{n}{n-1}\, \hat x_{ij} \sum_k g_{kj}\, \hat x_{kj} \bigg]",
    lambda v: batchnorm_backward_fused(v["g"], stats(v)[2], stats(v)[1] ** -0.5, v["gamma"]),
)

print("First the one derivative the chain needs, of the variance:")
print()
print(variance.render())
print("Then the whole layer; $g = dL/d(\\text{hpreact})$:")
print()
print(gradient.render())
TRIALS = 3
checks = variance.checks + gradient.checks
print(text(
    "Every line was evaluated on {trials} random inputs with $n = {n}$ examples and {H} units and "
    "compared with the line before it ({checks} comparisons, `rtol=1e-10`). The first line of "
    "each derivation is `ad_core`'s gradient of the forward computation; the second gradient line "
    "builds the full `(n, n, H)` tensor of partial derivatives $\\partial \\hat x_{{kj}} / "
    "\\partial x_{{ij}}$ and contracts it.",
    trials=given(TRIALS), n=given(n), H=given(H),
    # one comparison per line after the first, per trial
    checks=checked(checks, against=TRIALS * (len(variance.lines) - 1 + len(gradient.lines) - 1)),
))
