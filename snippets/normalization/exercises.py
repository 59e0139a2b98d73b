"""Self-test for "LayerNorm, RMSNorm and BatchNorm at inference": every worked answer is computed here."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, collapsible, given, load_snippet_module, text

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
EPS = norms.EPS


def title(number: int, words: str, **fields) -> str:
    return text("Exercise {k}. " + words, k=given(number), **fields)


def small(value: float) -> str:
    return f"{value:.1e}"


# 1. Two invariances, two zero directions.
B, H = 5, 6
v = norms.random_inputs(np.random.default_rng(51), B, H)
x, gain, g = v["x"], v["gain"], v["g"]
ln_dx = grad(lambda a: anp.sum(g * norms.layernorm(a, gain, v["bias"])))(x)
rms_dx = grad(lambda a: anp.sum(g * norms.rmsnorm(a, gain)))(x)
scale = float(np.max(np.abs(ln_dx)))
ln_sigma2 = x.var(axis=1) + EPS  # sigma_i^2, epsilon included
ln_xhat = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(ln_sigma2)[:, None]
rms_rho2 = (x**2).mean(axis=1) + EPS
rms_xhat = x / np.sqrt(rms_rho2)[:, None]
print(collapsible(
    title(1, "Without computing anything, say which of $\\sum_j dx_{{ij}}$ and $\\sum_j dx_{{ij}}\\, "
             "x_{{ij}}$ vanish for LayerNorm and for RMSNorm, and why. Then check it."),
    text(
        "LayerNorm's output does not change when you add a constant to a row (the mean removes "
        "it), so the derivative along $(1, \\dots, 1)$ is zero: $\\sum_j dx_{{ij}} = 0$. Each "
        "layer's output is (almost) unchanged when you scale a row by $c > 0$, so the derivative "
        "along the row itself is (almost) zero: $\\sum_j dx_{{ij}}\\, x_{{ij}} \\approx 0$, "
        "exactly zero only at $\\epsilon = 0$. RMSNorm removes no mean, so its row sums are "
        "not zero. On random {shape} inputs, from `ad_core`'s gradients: LayerNorm's largest "
        "row sum is {ln_sum} and its largest $\\lvert\\sum_j dx_{{ij}} x_{{ij}}\\rvert$ is "
        "{ln_dot}; RMSNorm's are {rms_sum} and {rms_dot}. The small nonzero values of the second "
        "kind are $\\epsilon$ at work, not rounding (far above {machine}): a line of algebra "
        "from the formulas above gives exactly $\\sum_j dx_{{ij}}\\, x_{{ij}} = "
        "\\frac{{\\epsilon}}{{\\sigma_i^2}} \\sum_j \\hat g_{{ij}}\\, \\hat x_{{ij}}$ for LayerNorm "
        "and the same with $\\rho_i$ for RMSNorm, and the engine's values match it to {match}.",
        shape=given(x.shape),
        ln_sum=checked(float(np.max(np.abs(ln_dx.sum(1)))), against=0.0, atol=1e-13 * H * scale,
                       shown_as=small),
        ln_dot=checked(float(np.max(np.abs((ln_dx * x).sum(1)))),
                       against=float(np.max(np.abs(EPS / ln_sigma2 * (g * gain * ln_xhat).sum(1)))),
                       rtol=1e-6, shown_as=small),
        rms_sum=checked(float(np.max(np.abs(rms_dx.sum(1)))),
                        against=float(np.max(np.abs(norms.rmsnorm_backward(g, x, gain)[0].sum(1)))),
                        rtol=1e-9, shown_as=lambda s: f"{s:.4f}"),
        rms_dot=checked(float(np.max(np.abs((rms_dx * x).sum(1)))),
                        against=float(np.max(np.abs(EPS / rms_rho2 * (g * gain * rms_xhat).sum(1)))),
                        rtol=1e-6, shown_as=small),
        match=given(1e-6, shown_as=lambda s: f"`rtol={s:.0e}`"),
        machine=checked(float(np.finfo(float).eps), against=2.0**-52, shown_as=small),
    ),
))
print()

# 2. LayerNorm with two features.
x2 = np.array([[2.0, -1.0], [0.5, 3.5], [-4.0, 1.0]])
gain2, bias2 = np.array([1.3, 0.8]), np.array([0.1, -0.2])
g2 = np.array([[1.0, -2.0], [0.5, 0.5], [3.0, 1.0]])
out2 = norms.layernorm(x2, gain2, bias2)
dx2 = grad(lambda a: anp.sum(g2 * norms.layernorm(a, gain2, bias2)))(x2)
half_gap2 = ((x2[:, 0] - x2[:, 1]) / 2) ** 2  # the variance of a two-entry row
print(collapsible(
    title(2, "LayerNorm with $H = {H}$ features. What is $\\hat x$ for any row, and what is the "
             "gradient with respect to `x`?", H=given(2)),
    text(
        "A row $(a, b)$ has mean $(a + b)/2$ and variance $((a - b)/2)^2$, so "
        "$\\hat x = \\pm(1, -1)$ times $\\sqrt{{\\mathrm{{var}} / (\\mathrm{{var}} + \\epsilon)}}$: "
        "the output "
        "is $\\gamma \\odot (\\pm 1, \\mp 1) + \\beta$ whatever the row, up to $\\epsilon$. So the "
        "gradient is nearly zero: on the rows {rows} (variances {var}), the largest "
        "$\\lvert dx \\rvert$ from "
        "`ad_core` is {largest}, while the upstream gradient's entries are up to {g}. The only "
        "information a two-feature LayerNorm passes on is which entry is larger. The formula "
        "agrees: both sums in it are taken over a row whose $\\hat x$ is $\\pm(1, -1)$, and they "
        "cancel $H\\, \\hat g_{{ij}}$ up to $\\epsilon$ (largest difference from the formula "
        "{match}). The largest $\\lvert \\hat x \\rvert$ is {xhat}.",
        largest=checked(float(np.max(np.abs(dx2))),
                        against=float(np.max(np.abs(norms.layernorm_backward(g2, x2, gain2)[0]))),
                        rtol=1e-6, shown_as=small),
        g=given(float(np.max(np.abs(g2)))),
        rows=given(x2), var=checked(x2.var(axis=1), against=half_gap2),
        match=checked(float(np.max(np.abs(dx2 - norms.layernorm_backward(g2, x2, gain2)[0]))),
                      against=0.0, atol=1e-12, shown_as=small),
        xhat=checked(float(np.max(np.abs((out2 - bias2) / gain2))),
                     against=float(np.max(np.sqrt(half_gap2 / (half_gap2 + EPS)))), rtol=1e-12,
                     shown_as=lambda s: f"{s:.8f}"),
    ),
))
print()

# 3. BatchNorm in training mode on a batch of one.
one = norms.random_inputs(np.random.default_rng(53), 1, 4)
y1 = norms.batchnorm_train(one["x"], one["gain"], one["bias"])
dx1 = grad(lambda a: anp.sum(one["g"] * norms.batchnorm_train(a, one["gain"], one["bias"])))(one["x"])
print(collapsible(
    title(3, "You evaluate a BatchNorm model one example at a time but forget to switch it to "
             "inference mode, so it uses the statistics of a batch of {B}. What comes out, and "
             "what gradient goes back?", B=given(1)),
    text(
        "The batch mean is the example itself, so $x - \\mu = 0$ and the variance is zero: the "
        "output is the bias $\\beta$ for every input (largest difference from $\\beta$: {out}) "
        "and the input gradient is zero (largest entry: {grad}). Every example gets the same "
        "prediction and no training signal reaches the layers below. PyTorch {version}'s "
        "`BatchNorm1d` refuses such a batch in training mode with a `ValueError`; a hand-written "
        "layer like this one fails silently. "
        "<!-- tested: tests/snippets/test_normalization.py::test_pytorch_batchnorm1d_refuses_a_batch_of_one_in_training -->"  # noqa: E501 (the marker is one token)
        " Inference mode uses the running statistics instead, and its gradient "
        "$\\gamma / \\sqrt{{\\text{{running\\_var}} + \\epsilon}} \\odot g$ is nonzero "
        "wherever $\\gamma_j \\ne 0$ and $g \\ne 0$.",
        out=checked(float(np.max(np.abs(y1 - one["bias"]))), against=0.0, shown_as=small),
        grad=checked(float(np.max(np.abs(dx1))), against=0.0, shown_as=small),
        # The version the chapter's tests run (tests/snippets/test_normalization.py checks it).
        version=given("2.13"),
    ),
))
