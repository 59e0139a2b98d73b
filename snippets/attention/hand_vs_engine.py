"""The hand-written backward pass against the engine's VJP and against central differences."""

from pathlib import Path

import numpy as np

from bookkit import central_differences, checked, given, load_snippet_module, md_table, text

attn = load_snippet_module(Path(__file__).with_name("_attention.py"))
TO_ENGINE, TO_DIFFERENCES = 1e-12, 1e-7  # float64 rounding; the O(step²) error of the differences
seed = 11
v = attn.make_inputs(np.random.default_rng(seed))

# --8<-- [start:compare]
hand = attn.attention_backward(**v)
engine = attn.engine_gradients(**v)
arguments = ["Q", "K", "V"]


def loss_of(name):
    """<dO, O> as a function of one input, the others fixed, in plain NumPy (no engine)."""
    return lambda x: attn.numeric_loss(**{**v, name: x})


differences = {name: central_differences(loss_of(name), v[name]) for name in arguments}
# --8<-- [end:compare]

rows = []
for name in arguments:
    ours, theirs, numeric = hand["d" + name], engine["d" + name], differences[name]
    rows.append(
        [
            f"`d{name}`",
            checked(ours.shape, against=v[name].shape),
            checked(
                float(np.max(np.abs(ours - theirs))), against=0.0, atol=TO_ENGINE, shown_as="{:.1e}".format
            ),
            checked(
                float(np.max(np.abs(ours - numeric))),
                against=0.0,
                atol=TO_DIFFERENCES,
                shown_as="{:.1e}".format,
            ),
        ]
    )
print(
    md_table(
        [
            "gradient",
            "shape",
            "largest difference to the engine",
            "largest difference to central differences",
        ],
        rows,
    )
)
print()
print(
    text(
        "Random float64 inputs (seed {seed}), causal mask; every entry of each gradient agrees with "
        "the engine within {to_engine:.0e} and with central differences within {to_differences:.0e}.",
        seed=given(seed),
        to_engine=given(TO_ENGINE),
        to_differences=given(TO_DIFFERENCES),
    )
)
