"""The tempting wrong input gradient: correlate with the kernel as it is, not flipped."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from bookkit import checked, load_snippet_module, md_table, yes_no

conv = load_snippet_module(Path(__file__).with_name("_convolution.py"))
rng = np.random.default_rng(9)
x, dy = rng.normal(size=10), rng.normal(size=7)


# --8<-- [start:wrong]
def unflipped_input_grad(dy, w):
    padded = np.pad(dy, (len(w) - 1, len(w) - 1))
    return np.correlate(padded, w, mode="valid")  # w, where w[::-1] belongs


# --8<-- [end:wrong]


kernels = {
    "random": rng.normal(size=4),
    "symmetric, $w = \\overleftarrow{w}$": np.array([0.5, -1.0, -1.0, 0.5]),
}
rows = []
for name, w in kernels.items():
    engine = make_vjp(lambda a, w=w: conv.conv1d(a, w))(x)[0](dy)
    wrong = unflipped_input_grad(dy, w)
    caught = not np.allclose(wrong, engine, rtol=1e-9, atol=1e-12)
    rows.append(
        [
            name,
            checked(
                float(np.max(np.abs(wrong - engine))),
                against=float(np.max(np.abs(wrong - conv.conv1d_input_grad(dy, w)))),
                rtol=1e-9,
                atol=1e-15,
                shown_as="{:.2f}".format,
            ),
            # Independently: flipping changes nothing exactly when the kernel is a palindrome.
            checked(caught, against=not np.array_equal(w, w[::-1]), shown_as=yes_no),
        ]
    )
print(md_table(["kernel", "largest difference to the engine", "caught"], rows))
