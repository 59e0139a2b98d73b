"""One example through Z = h W2 + b2, computed entry by entry and with matrices."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, checked, given, latex_matrix, text

h = np.array([[2.0, -1.0]])                 # (1, 2): one example, two hidden units
W2 = np.array([[1.0, 3.0], [4.0, 2.0]])     # (2, 2)
b2 = np.array([0.5, 0.0])
dZ = np.array([[0.5, -0.25]])               # upstream gradient, (1, 2)

# --8<-- [start:scalar_loops]
dh_loops = np.zeros_like(h)
dW2_loops = np.zeros_like(W2)
for k in range(2):
    for j in range(2):
        dh_loops[0, k] += dZ[0, j] * W2[k, j]       # h[0, k] feeds every output j
        dW2_loops[k, j] += h[0, k] * dZ[0, j]       # W2[k, j] is used by every example
# --8<-- [end:scalar_loops]
# --8<-- [start:matrix_form]
dh = dZ @ W2.T
dW2 = h.T @ dZ
db2 = dZ.sum(axis=0)
# --8<-- [end:matrix_form]


def surrogate(h, W2, b2):
    return anp.sum((anp.dot(h, W2) + b2) * dZ)      # its gradient with respect to Z is dZ


assert_shape_then_close(grad(surrogate, 0)(h, W2, b2), dh)
assert_shape_then_close(grad(surrogate, 1)(h, W2, b2), dW2)
print(text(
    "$$\nh = {h},\\qquad W_2 = {W2},\\qquad b_2 = {b2},\\qquad dZ = {dZ}\n$$",
    h=latex_matrix(given(h), vector="row"), W2=latex_matrix(given(W2)),
    b2=latex_matrix(given(b2), vector="row"), dZ=latex_matrix(given(dZ), vector="row"),
))
print()
print(text(
    "$$\ndh = dZ\\,W_2^\\top = {dh},\\qquad dW_2 = h^\\top dZ = {dW2},\\qquad db_2 = {db2}\n$$",
    # the matrix products against the scalar loops, and db2 against ad_core
    dh=latex_matrix(checked(dh, against=dh_loops)),
    dW2=latex_matrix(checked(dW2, against=dW2_loops)),
    db2=latex_matrix(checked(db2, against=grad(surrogate, 2)(h, W2, b2)), vector="row"),
))
print()
print(
    "The loops, the matrix products and `ad_core` give the same three results (asserted, "
    "shape first)."
)
