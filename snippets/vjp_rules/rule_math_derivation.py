"""The two VJP formulas of the chapter, each line evaluated on random inputs and compared."""

import numpy as np

from bookkit import Derivation, checked, given, text


def complex_step_jacobian(f, x: np.ndarray, h: float = 1e-20) -> np.ndarray:
    """The Jacobian of f measured from f itself, column j = Im f(x + i h e_j) / h: no
    difference is taken, so it is exact to rounding for f built from sin and products, and it
    knows nothing of the formula the lines below derive."""
    return np.stack([np.imag(f(x + 1j * h * e)) / h for e in np.eye(x.size)], axis=-1)


def unary_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.standard_normal(4), "g": rng.standard_normal(4)}


unary = Derivation(unary_inputs)
unary.step(r"\bar x &= J^\top \bar y", lambda v: complex_step_jacobian(np.sin, v["x"]).T @ v["g"])
unary.step(r"&= \operatorname{diag}(\cos x)\, \bar y",
           lambda v: np.diag(np.cos(v["x"])) @ v["g"])
unary.step(r"&= \bar y \odot \cos x", lambda v: v["g"] * np.cos(v["x"]))
unary_shape = unary_inputs(np.random.default_rng(0))["x"].shape
print(text(
    "For $y = \\sin x$ with $x, y, \\bar y, \\bar x$ all of shape {shape}:\n",
    shape=given(unary_shape),
))
print(unary.render())


def binary_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.standard_normal((2, 3)), "b": rng.standard_normal(3),
            "g": rng.standard_normal((2, 3))}


binary = Derivation(binary_inputs)
binary.step(r"\bar b &= J_b^\top \operatorname{vec}(\bar z)",
            lambda v: complex_step_jacobian(lambda b: (v["x"] * b).reshape(-1), v["b"]).T
            @ v["g"].reshape(-1))
binary.step(r"&= \sum_{i=0}^{1} \operatorname{diag}(x_{i,:})\, \bar z_{i,:}",
            lambda v: sum(np.diag(v["x"][i]) @ v["g"][i] for i in range(2)))
binary.step(r"&= \textstyle\sum_{i} (\bar z \odot x)_{i,:}"
            r" = \operatorname{unbroadcast}(\bar z \odot x,\ (3,))",
            lambda v: (v["g"] * v["x"]).sum(axis=0))
example = binary_inputs(np.random.default_rng(0))
print()
print(text(
    "For $z = x \\odot b$ with $x, z, \\bar z$ of shape {x_shape} and $b, \\bar b$ of shape "
    "{b_shape} ($J_b$ has shape {j_shape}):\n",
    x_shape=given(example["x"].shape),
    b_shape=given(example["b"].shape),
    # One row per entry of z, one column per entry of b.
    j_shape=checked(
        complex_step_jacobian(lambda b: (example["x"] * b).reshape(-1), example["b"]).shape,
        against=(example["x"].size, example["b"].size),
    ),
))
print(binary.render())
trials = 3  # Derivation.render's default
print()
print(text(
    "Each line above was evaluated on random float64 inputs and compared with the line before "
    "it ({checks} comparisons passed).",
    checks=checked(
        unary.checks + binary.checks,
        against=trials * (len(unary.lines) - 1) + trials * (len(binary.lines) - 1),
    ),
))
