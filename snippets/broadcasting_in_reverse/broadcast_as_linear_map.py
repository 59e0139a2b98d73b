"""Broadcasting is a linear map B; the engine's Jacobian of `x + b` is that matrix, and B^T sums."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian
from bookkit import assert_shape_then_close, checked, given, latex_matrix, load_snippet_module, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

x, b_scalar = helpers.SCALAR_X, helpers.SCALAR_BIAS
matrix, b_vector = helpers.MATRIX, helpers.VECTOR_BIAS

# --8<-- [start:matrices]
# One VJP per output element; flatten the output row by row.
B_scalar = jacobian(lambda b: x + b)(b_scalar).reshape(3, 1)
B_vector = jacobian(lambda b: matrix + b)(b_vector).reshape(6, 3)
# --8<-- [end:matrices]

# The same matrices written down directly: a column of ones, and two stacked identities.
column_of_ones = np.ones((3, 1))
stacked_identities = np.kron(np.ones((2, 1)), np.eye(3))
# Multiplying by B copies: it reproduces NumPy's broadcast of b.
assert_shape_then_close(B_scalar @ np.reshape(b_scalar, (1,)), np.broadcast_to(b_scalar, x.shape))
assert_shape_then_close((B_vector @ b_vector).reshape(matrix.shape), np.broadcast_to(b_vector, matrix.shape))

# B^T applied to the cotangent of L = sum(y) (all ones) must match the engine's gradient.
ones_y = np.ones(x.shape)
ones_Y = np.ones(matrix.shape)
scalar_from_transpose = (B_scalar.T @ ones_y).reshape(())
vector_from_transpose = B_vector.T @ ones_Y.ravel()
engine_scalar = np.asarray(grad(lambda b: anp.sum(x + b))(b_scalar))
engine_vector = grad(lambda b: anp.sum(matrix + b))(b_vector)


def shape_of(array, expected):
    return helpers.shape_cell(array.shape, expected)


print(text(
    "**Scalar bias**, {b_shape} → {x_shape}: $B$ has shape {B_shape} and $B^\\top$ adds the "
    "{n} entries of $\\bar y$.",
    b_shape=helpers.given_shape(np.shape(b_scalar)),
    x_shape=helpers.given_shape(x.shape),
    B_shape=shape_of(B_scalar, (x.size, 1)),
    n=given(x.size),
))
print()
print(text(
    "$$\nB = {B},\\qquad B^\\top \\bar y = {BT} {ones} = {result}\n$$",
    B=latex_matrix(checked(B_scalar, against=column_of_ones)),
    BT=latex_matrix(checked(B_scalar.T, against=column_of_ones.T)),
    ones=latex_matrix(given(ones_y.reshape(3, 1))),
    result=latex_matrix(checked(scalar_from_transpose, against=engine_scalar)),
))
print()
print(text(
    "**Vector bias**, {b_shape} → {m_shape}: $B$ has shape {B_shape}, two identity blocks "
    "stacked; $B^\\top$ has shape {BT_shape} and adds the first row of $\\bar Y$ to the "
    "second.",
    b_shape=helpers.given_shape(b_vector.shape),
    m_shape=helpers.given_shape(matrix.shape),
    B_shape=shape_of(B_vector, (matrix.size, b_vector.size)),
    BT_shape=shape_of(B_vector.T, (b_vector.size, matrix.size)),
))
print()
print(text(
    "$$\nB = {B},\\qquad B^\\top = {BT}\n$$",
    B=latex_matrix(checked(B_vector, against=stacked_identities)),
    BT=latex_matrix(checked(B_vector.T, against=stacked_identities.T)),
))
print()
print(text(
    "$$\nB^\\top \\operatorname{{vec}}(\\bar Y) = B^\\top {ones} = {result}\n$$",
    ones=latex_matrix(given(ones_Y.ravel().reshape(-1, 1))),
    result=latex_matrix(checked(vector_from_transpose.reshape(-1, 1), against=engine_vector.reshape(-1, 1))),
))
print()
print(
    "Both transposed products equal the gradients the engine returns for $L = \\sum y$ "
    "(checked at build time, shape first)."
)
