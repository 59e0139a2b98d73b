"""Three tempting wrong backward passes, and which check catches each."""

from pathlib import Path

import numpy as np

from bookkit import checked, load_snippet_module, md_table, yes_no

attn = load_snippet_module(Path(__file__).with_name("_attention.py"))
v = attn.make_inputs(np.random.default_rng(23))
Q, K, V, dO = v["Q"], v["K"], v["V"], v["dO"]
P = attn.forward_values(Q, K, V, v["M"])["P"]
dP = dO @ np.swapaxes(V, -1, -2)
root_d = np.sqrt(Q.shape[-1])
right_dS = P * (dP - np.sum(dP * P, axis=-1, keepdims=True))
engine = attn.engine_gradients(**v)

# --8<-- [start:wrong]
diagonal_only_dS = P * (1 - P) * dP  # keeps only ∂P_ij/∂S_ij, drops the row's other entries
wrong = {
    "softmax's Jacobian taken as its diagonal, in `dQ`": ("dQ", diagonal_only_dS @ K / root_d),
    "`dK` without the transpose, `dS @ Q`": ("dK", right_dS @ Q / root_d),
    "`dQ` without the scale": ("dQ", right_dS @ K),
}
# --8<-- [end:wrong]

rows = []
for label, (name, value) in wrong.items():
    reference = engine[name]
    shape_ok = value.shape == reference.shape
    largest = float(np.max(np.abs(value - reference)))
    # Independently: the wrong gradient's error relative to the right one is far above rounding.
    assert largest > 1e-3 * float(np.max(np.abs(reference)))
    rows.append(
        [
            label,
            checked(
                shape_ok,
                against=(value.ndim == 4 and value.shape[-2:] == (attn.LENGTH, attn.WIDTH)),
                shown_as=yes_no,
            ),
            checked(
                largest,
                against=float(np.max(np.abs(value - attn.attention_backward(**v)[name]))),
                rtol=1e-9,
                shown_as="{:.2f}".format,
            ),
        ]
    )
print(md_table(["wrong version", "shape matches", "largest difference to the engine"], rows))
