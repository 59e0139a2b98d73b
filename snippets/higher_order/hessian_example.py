"""A Hessian: the Jacobian of the gradient, its shape, its symmetry, and a finite-difference check."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, hessian
from bookkit import checked, fmt_array, given, latex_matrix, text


# --8<-- [start:hessian]
def loss(w):
    """Logistic loss of three fixed samples, a function of the weights w of shape (3,)."""
    features = np.array([[1.0, 2.0, -1.0], [0.5, -1.0, 2.0], [-1.5, 0.5, 1.0]])
    labels = np.array([1.0, -1.0, 1.0])
    return anp.sum(anp.log1p(anp.exp(-labels * (features @ w))))


w = np.array([0.1, -0.2, 0.3])
H = hessian(loss)(w)
# --8<-- [end:hessian]

gradient = grad(loss)
step = 1e-5
columns = [(gradient(w + step * e) - gradient(w - step * e)) / (2 * step) for e in np.eye(3)]
H_numeric = np.stack(columns, axis=1)
# In closed form: H = X^T diag(s (1 - s)) X for s = sigmoid(-y X w), since y^2 = 1.
features = np.array([[1.0, 2.0, -1.0], [0.5, -1.0, 2.0], [-1.5, 0.5, 1.0]])
labels = np.array([1.0, -1.0, 1.0])
s = 1 / (1 + np.exp(labels * (features @ w)))
H_closed = features.T @ np.diag(s * (1 - s)) @ features
eigenvalues = np.linalg.eigvalsh(H)
largest_gap = float(np.max(np.abs(H - H_numeric)))
np.testing.assert_allclose(H, H.T, rtol=1e-14)

print(text("`hessian(loss)(w)` has shape {shape}:\n", shape=checked(H.shape, against=(w.size, w.size))))
print(text("$$\nH = {H}\n$$\n", H=latex_matrix(checked(H, against=H_closed, rtol=1e-12, atol=1e-15))))
print(text(
    "It matches central differences of the gradient to {gap:.1e} (their own error), equals "
    "its transpose, and its eigenvalues {eigenvalues} are positive: the loss is convex here.\n",
    gap=checked(largest_gap, against=0.0, atol=1e-9),
    # eigvalsh (symmetric solver) against the general eigenvalue solver, sorted.
    eigenvalues=checked(eigenvalues, against=np.sort(np.linalg.eigvals(H).real), rtol=1e-12,
                        shown_as=lambda e: f"`{fmt_array(e)}`"),
))
assert np.all(eigenvalues > 0)  # a logistic loss is convex

matrix_input = np.arange(4.0).reshape(2, 2) / 4
H_of_matrix = hessian(lambda m: anp.sum(anp.tanh(m) ** 2))(matrix_input)
print(text(
    "For an input of shape {input} the Hessian has shape {shape}: `x.shape + x.shape`, one "
    "second derivative per pair of entries.",
    input=given(matrix_input.shape),
    shape=checked(H_of_matrix.shape, against=matrix_input.shape + matrix_input.shape),
))
