"""The minimal example: softmax's Jacobian built by the engine's `jacobian`, against diag(p) - p pᵀ."""

from pathlib import Path

import numpy as np

from ad_core import jacobian
from bookkit import checked, given, latex_matrix, load_snippet_module, text

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))

# --8<-- [start:engine]
z = np.array([1.0, 2.0, 0.5])                      # logits, shape (3,)
p = helpers.softmax_np(z)                           # probabilities, shape (3,)
J_engine = jacobian(helpers.softmax)(z)             # J[i, j] = ∂p_i / ∂z_j, shape (3, 3)
J_formula = np.diag(p) - np.outer(p, p)             # diag(p) - p pᵀ
# --8<-- [end:engine]

# A third computation, for the entries the page prints: central differences, one column per z_j.
step = 1e-6
J_differences = np.stack(
    [(helpers.softmax_np(z + step * e) - helpers.softmax_np(z - step * e)) / (2 * step) for e in np.eye(3)],
    axis=1,
)
np.testing.assert_allclose(J_engine, J_differences, rtol=1e-8, atol=1e-10)
row_sums = J_engine.sum(axis=1)
eps = np.finfo(float).eps

print(text(
    "$$\nz = {z}, \\qquad p = \\operatorname{{softmax}}(z) = {p}\n$$",
    z=latex_matrix(given(z), vector="row"),
    # p against the definition written another way: e^z over its sum, without the shift
    p=latex_matrix(checked(p, against=np.exp(z) / np.exp(z).sum(), rtol=1e-15), vector="row"),
))
print()
print(text(
    "$$\nJ = \\frac{{\\partial p}}{{\\partial z}} = {J}\n$$",
    J=latex_matrix(checked(J_engine, against=J_formula, rtol=1e-14, atol=1e-16)),
))
print()
print(text(
    "The engine's `jacobian` built this {shape} matrix by one backward pass per output; it equals "
    "$\\operatorname{{diag}}(p) - p p^\\top$ to `rtol=1e-14` and central differences to `rtol=1e-8`. "
    "It is symmetric (largest asymmetry {asym}), and each row sums to zero (largest row sum "
    "{rows}): shifting every logit by the same amount leaves $p$ unchanged.",
    shape=checked(J_engine.shape, against=(z.size, z.size)),
    asym=checked(float(np.abs(J_engine - J_engine.T).max()), against=0.0, atol=4 * eps,
                 shown_as=lambda v: f"{v:.1e}"),
    rows=checked(float(np.abs(row_sums).max()), against=0.0, atol=4 * eps, shown_as=lambda v: f"{v:.1e}"),
))
