"""The two VJP formulas of the chapter, each line evaluated on random inputs and compared."""

import numpy as np

from bookkit import Derivation


def unary_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.standard_normal(4), "g": rng.standard_normal(4)}


unary = Derivation(unary_inputs)
unary.step(r"\bar x &= J^\top \bar y", lambda v: np.diag(np.cos(v["x"])).T @ v["g"])
unary.step(r"&= \operatorname{diag}(\cos x)\, \bar y",
           lambda v: np.diag(np.cos(v["x"])) @ v["g"])
unary.step(r"&= \bar y \odot \cos x", lambda v: v["g"] * np.cos(v["x"]))
print("For $y = \\sin x$ with $x, y, \\bar y, \\bar x$ all of shape `(4,)`:\n")
print(unary.render())
assert unary.checks > 0


def binary_inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.standard_normal((2, 3)), "b": rng.standard_normal(3),
            "g": rng.standard_normal((2, 3))}


def jacobian_wrt_b(x: np.ndarray) -> np.ndarray:
    # Row (i, j) of vec(z) = x[i, j] * b[j] depends on b[j] only: one diagonal block per row i.
    return np.vstack([np.diag(row) for row in x])


binary = Derivation(binary_inputs)
binary.step(r"\bar b &= J_b^\top \operatorname{vec}(\bar z)",
            lambda v: jacobian_wrt_b(v["x"]).T @ v["g"].reshape(-1))
binary.step(r"&= \sum_{i=0}^{1} \operatorname{diag}(x_{i,:})\, \bar z_{i,:}",
            lambda v: sum(np.diag(v["x"][i]) @ v["g"][i] for i in range(2)))
binary.step(r"&= \textstyle\sum_{i} (\bar z \odot x)_{i,:}"
            r" = \operatorname{unbroadcast}(\bar z \odot x,\ (3,))",
            lambda v: (v["g"] * v["x"]).sum(axis=0))
print(
    "\nFor $z = x \\odot b$ with $x, z, \\bar z$ of shape `(2, 3)` and $b, \\bar b$ of "
    "shape `(3,)` ($J_b$ has shape `(6, 3)`):\n"
)
print(binary.render())
assert binary.checks > 0
print(
    f"\nEach line above was evaluated on random float64 inputs and compared with the line "
    f"before it ({unary.checks + binary.checks} comparisons passed)."
)
