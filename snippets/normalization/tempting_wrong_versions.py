"""Two tempting wrong LayerNorm backward passes: BatchNorm's formula moved to the other axis."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import central_differences, checked, given, load_snippet_module, md_table, text, yes_no

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
B, H = 5, 7
v = norms.random_inputs(np.random.default_rng(21), B, H)
x, bias, g = v["x"], v["bias"], v["g"]
VERSIONS = {
    "right (`layernorm_backward`)": lambda gain: norms.layernorm_backward(g, x, gain)[0],
    "gain factored out of the sums": lambda gain: norms.layernorm_backward_gain_outside(g, x, gain),
    "sums over the batch axis": lambda gain: norms.layernorm_backward_batch_axis(g, x, gain),
}
GAINS = {"random": v["gain"], "all ones": np.ones(H)}


def small(value: float) -> str:
    return f"{value:.1e}"


rows = []
for version, backward in VERSIONS.items():
    for gain_name, gain in GAINS.items():
        def loss(a, gain=gain):
            return anp.sum(g * norms.layernorm(a, gain, bias))
        hand, engine = backward(gain), grad(loss)(x)
        differences = central_differences(lambda a, loss=loss: float(loss(a)), x)
        gap = float(np.max(np.abs(hand - engine)))
        passes = bool(np.allclose(hand, engine, rtol=1e-9, atol=1e-12))
        rows.append([
            version, gain_name,
            checked(hand.shape == engine.shape, against=hand.shape == x.shape, shown_as=yes_no),
            # the engine's gap, confirmed by central differences (which never call the engine)
            checked(gap, against=float(np.max(np.abs(hand - differences))), atol=1e-7, shown_as=small),
            checked(passes, against=bool(np.allclose(hand, differences, rtol=1e-5, atol=1e-7)),
                    shown_as=yes_no),
        ])
print(md_table(["version", "gain", "shape check passes", "largest difference from `ad_core`",
                "values check passes"], rows))
print()
print(text(
    "With `x` of shape {shape}. Neither wrong version changes a shape: the sums keep their "
    "axis with `keepdims=True`, and a `(1, H)` sum broadcasts as happily as a `(B, 1)` one. Only "
    "the values catch them, and the first one only when the gain is not all ones.",
    shape=given(x.shape),
))
