"""The derivation B^T vec(G) = sum over rows = unbroadcast(G), every line checked numerically."""

import numpy as np

from ad_core.numpy.vjps import unbroadcast
from ad_core.numpy.wrapper import metadata
from bookkit import Derivation, checked, text

ROWS, COLUMNS = 2, 3
B = np.kron(np.ones((ROWS, 1)), np.eye(COLUMNS))  # the broadcast (3,) -> (2, 3), row-major


def random_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "b": rng.standard_normal(COLUMNS),
        "G": rng.standard_normal((ROWS, COLUMNS)),
    }


# --8<-- [start:derivation]
I3 = np.eye(3)
sum_rule = Derivation(random_inputs)
sum_rule.step(r"\bar b &= B^\top \operatorname{vec}(G)",
              lambda v: B.T @ v["G"].ravel())
sum_rule.step(r"&= \begin{bmatrix} I_3 & I_3 \end{bmatrix}"
              r"\begin{bmatrix} G_{0,:}^\top \\ G_{1,:}^\top \end{bmatrix}",
              lambda v: np.hstack([I3, I3]) @ v["G"].ravel())
sum_rule.step(r"&= G_{0,:} + G_{1,:}",
              lambda v: v["G"][0] + v["G"][1])
sum_rule.step(r"&= \textstyle\sum_{i} G_{i,:}",
              lambda v: v["G"].sum(axis=0))
sum_rule.step(r"&= \texttt{unbroadcast}"
              r"\big(G,\ \texttt{metadata}(b)\big)",
              lambda v: unbroadcast(v["G"], metadata(v["b"])))
# --8<-- [end:derivation]

# --8<-- [start:adjoint]
adjoint = Derivation(random_inputs)
adjoint.step(r"\langle B b,\ G \rangle"
             r" &= \textstyle\sum_{i,j} b_j\, G_{ij}",
             lambda v: (B @ v["b"]) @ v["G"].ravel())
adjoint.step(r"&= \textstyle\sum_{j} b_j \sum_{i} G_{ij}",
             lambda v: np.einsum("j,ij->", v["b"], v["G"]))
adjoint.step(r"&= \langle b,\ B^\top G \rangle",
             lambda v: v["b"] @ unbroadcast(v["G"],
                                            metadata(v["b"])))
# --8<-- [end:adjoint]

trials = 3  # Derivation.render's default
transpose_latex = sum_rule.render(trials=trials)
adjoint_latex = adjoint.render(trials=trials)

print(transpose_latex)
print()
print(adjoint_latex)
print()
print(text(
    "The build evaluated every line above on random float64 inputs `b` and `G` and compared "
    "each line with the one before it: {checks} comparisons, all equal.",
    checks=checked(sum_rule.checks + adjoint.checks,
                   against=trials * (len(sum_rule.lines) - 1 + len(adjoint.lines) - 1)),
))
