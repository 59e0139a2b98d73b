"""BatchNorm, LayerNorm and RMSNorm axis by axis: every cell computed from shapes and checked
against the engine's Jacobian or gradient."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian
from bookkit import checked, given, load_snippet_module, md_table, text

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
B, H = 5, 4  # different sizes, so that every shape names its axis
AXIS_NAMES = {norms.BATCH_AXIS: "batch", norms.FEATURE_AXIS: "features"}
v = norms.random_inputs(np.random.default_rng(3), B, H)
x, gain, bias, g = v["x"], v["gain"], v["bias"], v["g"]

# Each layer as a function of (x, gain), with the axis its statistics reduce as written in its code.
LAYERS = {
    "BatchNorm (training)": (lambda x, gain: norms.batchnorm_train(x, gain, bias), norms.BATCH_AXIS),
    "LayerNorm": (lambda x, gain: norms.layernorm(x, gain, bias), norms.FEATURE_AXIS),
    "RMSNorm": (lambda x, gain: norms.rmsnorm(x, gain), norms.FEATURE_AXIS),
}


def coupled_along(layer) -> str:
    """Which axis the outputs are coupled along, read from the engine's full Jacobian."""
    batch_blocks, cross_features = norms.coupling_counts(jacobian(layer)(x, gain), tol=1e-12)
    return {(True, False): "batch", (False, True): "features"}[(batch_blocks > 0, cross_features > 0)]


rows = []
for name, (layer, axis) in LAYERS.items():
    statistic_shape = np.mean(x, axis=axis, keepdims=True).shape
    # dgain: the gain of shape (H,) is broadcast against (B, H); the gradient sums the axes the
    # broadcast added, here the leading one.
    added_axes = tuple(range(x.ndim - gain.ndim))
    dgain_engine = grad(lambda gn, layer=layer: anp.sum(g * layer(x, gn)))(gain)
    xhat = (layer(x, gain) - (bias if name != "RMSNorm" else 0.0)) / gain
    rows.append([
        name,
        checked(AXIS_NAMES[axis], against=coupled_along(layer)),
        checked(statistic_shape, against=tuple(1 if a == axis else n for a, n in enumerate(x.shape))),
        checked(" and ".join(AXIS_NAMES[a] for a in added_axes),
                # the engine's dgain is the batch sum of g * xhat, not the feature sum
                against="batch" if np.allclose(dgain_engine, (g * xhat).sum(axis=0), rtol=1e-12) else "?"),
        checked(dgain_engine.shape, against=gain.shape),
    ])

print(md_table(
    ["layer", "statistics over", "statistic shape", "dgain, dbias (if any) sum over", "dgain shape"], rows
))
print()
print(text(
    "For `x` of shape {shape}. The second column is the axis each layer's code reduces; it is "
    "checked against the engine's full `(B, H, B, H)` Jacobian, whose nonzero entries couple "
    "outputs along exactly that axis. The statistics and the parameter gradients reduce "
    "*different* axes in LayerNorm and RMSNorm, the same axis in BatchNorm.",
    shape=given(x.shape),
))
