"""The VJPs of a 1-D convolution, with respect to the input and to the kernel, derived in index
form and checked line by line; each first line is the engine's VJP of the im2col convolution."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from bookkit import Derivation, checked, given, load_snippet_module, text

conv = load_snippet_module(Path(__file__).with_name("_convolution.py"))
length, width = 9, 4  # the output has length - width + 1 = 6 entries: three different sizes
outputs = length - width + 1


def make_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.normal(size=length), "w": rng.normal(size=width), "dy": rng.normal(size=outputs)}


def indicator(condition: bool) -> float:
    """[condition]; the kernel index is taken modulo K so that it exists when this is zero."""
    return 1.0 if condition else 0.0


dx = Derivation(make_inputs)
dx.step(
    r"\bar x_j &= \textstyle\sum_i \bar y_i\, \partial y_i / \partial x_j \quad\text{(the engine's VJP)}",
    lambda v: make_vjp(lambda a: conv.conv1d(a, v["w"]))(v["x"])[0](v["dy"]),
)
dx.step(
    r"&= \textstyle\sum_{i} \bar y_i\, w_{j-i}\, [\,0 \le j - i < K\,]",
    lambda v: np.array(
        [
            sum(v["dy"][i] * v["w"][(j - i) % width] * indicator(0 <= j - i < width) for i in range(outputs))
            for j in range(length)
        ]
    ),
)
dx.step(
    r"&= \textstyle\sum_{m=0}^{K-1} \tilde y_{j+m}\, \overleftarrow{w}_m, \quad "
    r"\tilde y = (\underbrace{0, \dots, 0}_{K-1}, \bar y, \underbrace{0, \dots, 0}_{K-1}),\ "
    r"\overleftarrow{w}_m = w_{K-1-m}",
    lambda v: np.array(
        [
            sum(np.pad(v["dy"], width - 1)[j + m] * v["w"][width - 1 - m] for m in range(width))
            for j in range(length)
        ]
    ),
)
dx.step(r"&= \big(\tilde y \star \overleftarrow{w}\big)_j", lambda v: conv.conv1d_input_grad(v["dy"], v["w"]))

dw = Derivation(make_inputs)
dw.step(
    r"\bar w_k &= \textstyle\sum_i \bar y_i\, \partial y_i / \partial w_k \quad\text{(the engine's VJP)}",
    lambda v: make_vjp(lambda a: conv.conv1d(v["x"], a))(v["w"])[0](v["dy"]),
)
dw.step(
    r"&= \textstyle\sum_{i} \bar y_i\, x_{i+k}",
    lambda v: np.array([sum(v["dy"][i] * v["x"][i + k] for i in range(outputs)) for k in range(width)]),
)
dw.step(r"&= \big(x \star \bar y\big)_k", lambda v: conv.conv1d_kernel_grad(v["x"], v["dy"]))

trials = 3
print(dx.render(trials=trials))
print(dw.render(trials=trials))
print(
    text(
        "Here $\\star$ is the valid correlation the forward pass computes, $(a \\star b)_j = "
        "\\sum_m a_{{j+m}} b_m$, and $[\\cdot]$ is one when its condition holds and zero otherwise. "
        "With $N = {N}$ inputs and a kernel of $K = {K}$, {total} line-to-line comparisons on random "
        "float64 inputs passed before this was printed.",
        N=given(length),
        K=given(width),
        total=checked(dx.checks + dw.checks, against=(len(dx.lines) - 1 + len(dw.lines) - 1) * trials),
    )
)
