"""The term RMSNorm's backward pass does not have: LayerNorm's mean term, seen on rows whose
mean is zero, where the two layers compute the same output."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, load_snippet_module, text

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
B, H = 4, 6

# On rows with mean zero the two layers compute the same output, and their
# gradients still differ, by exactly LayerNorm's mean term.
v = norms.random_inputs(np.random.default_rng(7), B, H)
centred = v["x"] - v["x"].mean(axis=1, keepdims=True)
same_output = np.max(np.abs(norms.layernorm(centred, v["gain"], 0.0) - norms.rmsnorm(centred, v["gain"])))
ln_dx = grad(lambda x: anp.sum(v["g"] * norms.layernorm(x, v["gain"], 0.0)))(centred)
rms_dx = grad(lambda x: anp.sum(v["g"] * norms.rmsnorm(x, v["gain"])))(centred)
ghat = v["g"] * v["gain"]
sigma = np.sqrt((centred**2).mean(axis=1, keepdims=True) + norms.EPS)  # (B, 1), = rho on these rows
mean_term = -ghat.sum(axis=1, keepdims=True) / (H * sigma)  # (B, 1), the same for every j
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
