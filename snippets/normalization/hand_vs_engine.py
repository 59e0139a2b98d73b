"""Each hand-written gradient of the chapter against `ad_core` and against central differences."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import central_differences, checked, given, load_snippet_module, md_table, text

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
B, H = 5, 7
v = norms.random_inputs(np.random.default_rng(11), B, H)
x, gain, bias, g = v["x"], v["gain"], v["bias"], v["g"]
running_mean = x.mean(axis=0) + 0.3 * np.random.default_rng(12).standard_normal(H)
running_var = x.var(axis=0) * np.random.default_rng(13).uniform(0.5, 2.0, H)

# --8<-- [start:compare]
# (name, hand-written gradient, the loss as a function of that one argument, its value)
ln_dx, ln_dgain, ln_dbias = norms.layernorm_backward(g, x, gain)
rms_dx, rms_dgain = norms.rmsnorm_backward(g, x, gain)
cases = [
    ("LayerNorm dx", ln_dx, lambda a: anp.sum(g * norms.layernorm(a, gain, bias)), x),
    ("LayerNorm dgain", ln_dgain, lambda a: anp.sum(g * norms.layernorm(x, a, bias)), gain),
    ("LayerNorm dbias", ln_dbias, lambda a: anp.sum(g * norms.layernorm(x, gain, a)), bias),
    ("RMSNorm dx", rms_dx, lambda a: anp.sum(g * norms.rmsnorm(a, gain)), x),
    ("RMSNorm dgain", rms_dgain, lambda a: anp.sum(g * norms.rmsnorm(x, a)), gain),
    ("BatchNorm (inference) dx", norms.batchnorm_eval_backward(g, gain, running_var),
     lambda a: anp.sum(g * norms.batchnorm_eval(a, gain, bias, running_mean, running_var)), x),
]
# --8<-- [end:compare]


def small(value: float) -> str:
    return f"{value:.1e}"


rows = []
for name, hand, loss, at in cases:
    engine = grad(loss)(at)
    differences = central_differences(lambda a, loss=loss: float(loss(a)), at)
    scale = float(np.max(np.abs(engine)))
    rows.append([
        f"`{name}`",
        checked(hand.shape, against=engine.shape),
        checked(float(np.max(np.abs(hand - engine))), against=0.0, atol=1e-12 * max(scale, 1.0),
                shown_as=small),
        checked(float(np.max(np.abs(hand - differences))), against=0.0, atol=1e-7 * max(scale, 1.0),
                shown_as=small),
    ])
print(md_table(["gradient", "shape", "largest difference from `ad_core`",
                "largest difference from central differences"], rows))
print()
print(text(
    "On random float64 inputs of shape {shape}, gains away from one, biases away from zero and "
    "running statistics that are not the batch's. The shape is compared first (a `(B, H)` "
    "array can broadcast against a wrong `(B, 1)` or `(1, H)` one), then the values; central "
    "differences use a step of {step} and never call the engine.",
    shape=given(x.shape), step=given(1e-6, shown_as=lambda s: f"{s:.0e}"),
))
