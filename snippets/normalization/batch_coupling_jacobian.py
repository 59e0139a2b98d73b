"""BatchNorm's Jacobian across the batch: full in training, block-diagonal at inference."""

from pathlib import Path

import numpy as np

from ad_core import jacobian
from bookkit import checked, given, load_snippet_module, md_table, text

norms = load_snippet_module(Path(__file__).with_name("_norms.py"))
B, H = 4, 3
v = norms.random_inputs(np.random.default_rng(41), B, H)
x, gain, bias = v["x"], v["gain"], v["bias"]
running_mean, running_var = norms.running_update(np.zeros(H), np.ones(H), x)

MODES = {
    "training (batch statistics)": lambda a: norms.batchnorm_train(a, gain, bias),
    "inference (running statistics)":
        lambda a: norms.batchnorm_eval(a, gain, bias, running_mean, running_var),
    "LayerNorm (either mode)": lambda a: norms.layernorm(a, gain, bias),
}
# What each mode predicts, from which statistics couple which entries: batch statistics couple
# every pair of examples (within one feature); frozen ones couple nothing; LayerNorm's couple the
# features of one example.
PREDICTED = {
    "training (batch statistics)": (B * (B - 1), 0),
    "inference (running statistics)": (0, 0),
    "LayerNorm (either mode)": (0, B * H * (H - 1)),
}
rows = []
for mode, layer in MODES.items():
    engine = jacobian(layer)(x)  # (B, H, B, H)
    by_differences = norms.central_difference_jacobian(layer, x)
    counts = norms.coupling_counts(engine, tol=1e-12)
    assert counts == PREDICTED[mode], (mode, counts)
    off_diagonal = ~np.eye(B, dtype=bool)
    pairs = list(zip(*np.nonzero(off_diagonal), strict=True))
    largest = max(float(np.abs(engine[i, :, k, :]).max()) for i, k in pairs)
    rows.append([
        mode,
        checked(engine.shape, against=x.shape + x.shape),
        checked(counts[0], against=norms.coupling_counts(by_differences, tol=1e-8)[0]),
        given(B * (B - 1)),
        checked(largest, against=max(float(np.abs(by_differences[i, :, k, :]).max()) for i, k in pairs),
                atol=1e-8,
                shown_as=lambda s: f"{s:.4f}"),
        checked(counts[1], against=norms.coupling_counts(by_differences, tol=1e-8)[1]),
    ])
print(md_table(["layer and mode", "Jacobian shape", "nonzero off-diagonal batch blocks", "of",
                "largest entry in them", "nonzero cross-feature entries within an example"], rows))
print()
print(text(
    "For `x` of shape {shape}: block $(i, k)$ is $\\partial y_{{i,:}} / \\partial x_{{k,:}}$, "
    "of shape {block}. The counts come from `ad_core.jacobian` and are checked against a "
    "Jacobian built by central differences, one input entry at a time.",
    shape=given(x.shape), block=checked(jacobian(MODES["training (batch statistics)"])(x)[0, :, 1, :].shape,
                                        against=(H, H)),
))
