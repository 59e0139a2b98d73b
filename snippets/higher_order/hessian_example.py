"""A Hessian: the Jacobian of the gradient, its shape, its symmetry, and a finite-difference check."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, hessian
from bookkit import assert_shape_then_close, latex_matrix


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
assert_shape_then_close(H, H_numeric, rtol=1e-7, atol=1e-9)
np.testing.assert_allclose(H, H.T, rtol=1e-14)
eigenvalues = np.linalg.eigvalsh(H)
assert np.all(eigenvalues > 0)  # a logistic loss is convex

print(f"`hessian(loss)(w)` has shape `{H.shape}`:\n")
print(f"$$\nH = {latex_matrix(H)}\n$$\n")
print(
    f"It matches central differences of the gradient to "
    f"`{np.max(np.abs(H - H_numeric)):.1e}`, is symmetric, and its eigenvalues "
    f"`{np.array2string(eigenvalues, precision=4)}` are positive: the loss is convex here.\n"
)

matrix_input = np.arange(4.0).reshape(2, 2) / 4
H_of_matrix = hessian(lambda m: anp.sum(anp.tanh(m) ** 2))(matrix_input)
assert H_of_matrix.shape == matrix_input.shape * 2
print(
    f"For an input of shape `{matrix_input.shape}` the Hessian has shape "
    f"`{H_of_matrix.shape}`: `x.shape + x.shape`, one second derivative per pair of entries."
)
