"""Broadcasting is a linear map B; the engine's Jacobian of `x + b` is that matrix, and B^T sums."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian
from bookkit import assert_shape_then_close, fmt_shape, latex_matrix, load_snippet_module

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

x, b_scalar = helpers.SCALAR_X, helpers.SCALAR_BIAS
matrix, b_vector = helpers.MATRIX, helpers.VECTOR_BIAS

# --8<-- [start:matrices]
# One VJP per output element; flatten the output row by row.
B_scalar = jacobian(lambda b: x + b)(b_scalar).reshape(3, 1)
B_vector = jacobian(lambda b: matrix + b)(b_vector).reshape(6, 3)
# --8<-- [end:matrices]

# The same matrices written down directly: a column of ones, and two stacked identities.
assert_shape_then_close(B_scalar, np.ones((3, 1)))
assert_shape_then_close(B_vector, np.kron(np.ones((2, 1)), np.eye(3)))

# Multiplying by B copies: it reproduces NumPy's broadcast of b.
copies_of_scalar = B_scalar @ np.reshape(b_scalar, (1,))
copies_of_vector = (B_vector @ b_vector).reshape(matrix.shape)
assert_shape_then_close(copies_of_scalar, np.broadcast_to(b_scalar, x.shape))
assert_shape_then_close(copies_of_vector, np.broadcast_to(b_vector, matrix.shape))

# B^T applied to the cotangent of L = sum(y) (all ones) must match the engine's gradient.
ones_y = np.ones(x.shape)
ones_Y = np.ones(matrix.shape)
scalar_from_transpose = (B_scalar.T @ ones_y).reshape(())
vector_from_transpose = B_vector.T @ ones_Y.ravel()
assert_shape_then_close(scalar_from_transpose, np.asarray(grad(lambda b: anp.sum(x + b))(b_scalar)))
assert_shape_then_close(vector_from_transpose, grad(lambda b: anp.sum(matrix + b))(b_vector))

print(
    f"**Scalar bias**, `{fmt_shape(())}` → `{fmt_shape(x.shape)}`: "
    f"$B$ has shape `{fmt_shape(B_scalar.shape)}` and $B^\\top$ adds the "
    f"{x.size} entries of $\\bar y$."
)
print()
print("$$")
print(
    f"B = {latex_matrix(B_scalar)},\\qquad "
    f"B^\\top \\bar y = {latex_matrix(B_scalar.T)} {latex_matrix(ones_y.reshape(3, 1))} "
    f"= {latex_matrix(scalar_from_transpose)}"
)
print("$$")
print()
print(
    f"**Vector bias**, `{fmt_shape(b_vector.shape)}` → `{fmt_shape(matrix.shape)}`: "
    f"$B$ has shape `{fmt_shape(B_vector.shape)}`, two identity blocks stacked; $B^\\top$ has "
    f"shape `{fmt_shape(B_vector.T.shape)}` and adds row 0 of $\\bar Y$ to row 1."
)
print()
print("$$")
print(
    f"B = {latex_matrix(B_vector)},\\qquad "
    f"B^\\top = {latex_matrix(B_vector.T)}"
)
print("$$")
print()
print("$$")
print(
    f"B^\\top \\operatorname{{vec}}(\\bar Y) = "
    f"B^\\top {latex_matrix(ones_Y.ravel().reshape(-1, 1))} "
    f"= {latex_matrix(vector_from_transpose.reshape(-1, 1))}"
)
print("$$")
print()
print(
    "Both transposed products equal the gradients the engine returns for $L = \\sum y$ "
    "(asserted at build time, shape first)."
)
