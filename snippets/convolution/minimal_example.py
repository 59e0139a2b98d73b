"""The smallest convolution: the windows im2col gathers, the output, and the shape flow."""

from pathlib import Path

import numpy as np

from bookkit import checked, given, latex_matrix, load_snippet_module, text

conv = load_snippet_module(Path(__file__).with_name("_convolution.py"))
rng = np.random.default_rng(3)
x = rng.integers(-3, 4, size=6).astype(float)  # small integers, so the products can be read
w = rng.integers(-2, 3, size=3).astype(float)

windows = conv.im2col(x, len(w))
y = conv.conv1d(x, w)
# Independently: the windows written out by a loop, the output from NumPy's own correlate.
by_loop = np.array([[x[i + k] for k in range(len(w))] for i in range(len(x) - len(w) + 1)])

print(
    text(
        "$$x = {x}, \\quad w = {w}, \\quad \\operatorname{{im2col}}(x) = {windows}, \\quad "
        "y = \\operatorname{{im2col}}(x)\\, w = {y}$$",
        x=given(x, shown_as=lambda a: latex_matrix(a, vector="row")),
        w=given(w, shown_as=latex_matrix),
        windows=checked(windows, against=by_loop, shown_as=latex_matrix),
        y=checked(y, against=np.correlate(x, w, mode="valid"), shown_as=latex_matrix),
    )
)
print()
print(
    text(
        "Forward, the gather grows $x$ from {x} to {windows}: each entry is copied into every "
        "window that covers it. The product with $w$ reduces each window to one number: $y$ has shape {y}. "
        "Backward runs the other way: $\\bar y$ {y} becomes a window gradient {windows} "
        "($\\bar y\\, w^\\top$), and the copies are added back into {x}.",
        x=given(x.shape),
        windows=checked(windows.shape, against=(len(x) - len(w) + 1, len(w))),
        y=checked(y.shape, against=(len(x) - len(w) + 1,)),
    )
)
