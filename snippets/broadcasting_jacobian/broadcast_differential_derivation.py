"""The differential-form derivation of the bias gradient, every line checked numerically."""

import numpy as np

from bookkit import Derivation, checked, given, text

m, n = 4, 3
trials = 3


def make_inputs(rng: np.random.Generator) -> dict:
    return {"G": rng.normal(size=(m, n)), "db": rng.normal(size=n)}


def ones() -> np.ndarray:
    return np.ones(m)


# d(loss) as a number: each line evaluates the same scalar in a different algebraic form.
differential = Derivation(make_inputs)
differential.step(
    r"d\ell &= \operatorname{tr}\!\left(G^\top dY\right)",
    lambda v: np.trace(v["G"].T @ (np.outer(ones(), v["db"]))),
)
differential.step(
    r"&= \operatorname{tr}\!\left(G^\top \mathbf{1}_m\, db^\top\right)",
    lambda v: np.trace(v["G"].T @ ones()[:, None] @ v["db"][None, :]),
)
differential.step(
    r"&= db^\top G^\top \mathbf{1}_m",
    lambda v: v["db"] @ v["G"].T @ ones(),
)
differential.step(
    r"&= \left(G^\top \mathbf{1}_m\right)^\top db",
    lambda v: (v["G"].T @ ones()) @ v["db"],
)
differential.step(
    r"&= \sum_{j} \Big(\sum_{i} G_{ij}\Big)\, db_j",
    lambda v: sum(sum(v["G"][i, j] for i in range(m)) * v["db"][j] for j in range(n)),
)


# The gradient as a vector: the Kronecker form, then the plain sum.
def vec_columns(a: np.ndarray) -> np.ndarray:
    return a.flatten(order="F")


gradient = Derivation(make_inputs)
gradient.step(
    r"\bar b &= (I_n \otimes \mathbf{1}_m)^\top \operatorname{vec}(G)",
    lambda v: np.kron(np.eye(n), ones()[:, None]).T @ vec_columns(v["G"]),
)
gradient.step(
    r"&= (I_n \otimes \mathbf{1}_m^\top)\, \operatorname{vec}(G)",
    lambda v: np.kron(np.eye(n), ones()[None, :]) @ vec_columns(v["G"]),
)
gradient.step(r"&= G^\top \mathbf{1}_m", lambda v: v["G"].T @ ones())
gradient.step(
    r"&= \Big[\textstyle\sum_{i} G_{ij}\Big]_{j=1}^{n}",
    lambda v: np.array([sum(v["G"][i, j] for i in range(m)) for j in range(n)]),
)

print(differential.render(trials=trials, rtol=1e-10))
print()
print(
    "Reading the last line as an inner product $\\langle \\bar b, db\\rangle$ gives "
    "$\\bar b = G^\\top \\mathbf{1}_m$. The Kronecker route says the same thing "
    "($\\operatorname{vec}$ is column-major here, as in most linear-algebra texts):"
)
print()
print(gradient.render(trials=trials, rtol=1e-10))
print()
# Each line after the first is compared with the one above it, once per draw.
expected_comparisons = (len(differential.lines) - 1 + len(gradient.lines) - 1) * trials
print(
    text(
        "Before printing, the build evaluated every line on random float64 inputs "
        "($m = {m}$, $n = {n}$, {trials} draws) and compared it with the line above: "
        "{comparisons} comparisons passed.",
        m=given(m),
        n=given(n),
        trials=given(trials),
        comparisons=checked(differential.checks + gradient.checks, against=expected_comparisons),
    )
)
