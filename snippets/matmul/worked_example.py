"""The worked example: h = [2, -1], W2 = [[1, 3], [4, 2]], dZ = [0.5, -0.25], regenerated."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import assert_shape_then_close, fmt_number, latex_matrix, latex_number, md_table

# --8<-- [start:inputs]
h = np.array([[2.0, -1.0]])  # one example, two hidden units: shape (1, 2)
W2 = np.array([[1.0, 3.0], [4.0, 2.0]])  # (2, 2)
b2 = np.array([0.1, -0.2])  # any bias: the gradients do not depend on it
dZ = np.array([[0.5, -0.25]])  # upstream gradient, shape (1, 2)


def output_layer(h, W2, b2):
    return anp.matmul(h, W2) + b2


vjp_h, Z = make_vjp(lambda x: output_layer(x, W2, b2))(h)
vjp_W2, _ = make_vjp(lambda w: output_layer(h, w, b2))(W2)
vjp_b2, _ = make_vjp(lambda b: output_layer(h, W2, b))(b2)
dh, dW2, db2 = vjp_h(dZ), vjp_W2(dZ), vjp_b2(dZ)
# --8<-- [end:inputs]

# The numbers the example claims, checked against the engine.
assert_shape_then_close(dh, np.array([[-0.25, 1.5]]))
assert_shape_then_close(dW2, np.array([[1.0, -0.5], [-0.5, 0.25]]))
assert_shape_then_close(db2, np.array([0.5, -0.25]))
# And against the matrix formulas.
assert_shape_then_close(dh, dZ @ W2.T)
assert_shape_then_close(dW2, h.T @ dZ)
assert_shape_then_close(db2, dZ.sum(axis=0))


def signed(x: float) -> str:
    text = latex_number(x)
    return f"({text})" if x < 0 else text


# Each entry as the scalar multiply-adds it stands for, printed from the same arrays.
rows = []
for k in range(W2.shape[0]):
    terms = [f"{signed(dZ[0, j])} \\cdot {signed(W2[k, j])}" for j in range(W2.shape[1])]
    value = sum(dZ[0, j] * W2[k, j] for j in range(W2.shape[1]))
    assert np.isclose(value, dh[0, k], rtol=0, atol=1e-15)
    formula = " + ".join(f"\\bar Z_{{{j}}} W_{{2,{k}{j}}}" for j in range(W2.shape[1]))
    rows.append([f"$\\bar h_{{{k}}}$", f"${formula}$", f"${' + '.join(terms)}$", fmt_number(value)])
for k in range(W2.shape[0]):
    for j in range(W2.shape[1]):
        value = h[0, k] * dZ[0, j]
        assert np.isclose(value, dW2[k, j], rtol=0, atol=1e-15)
        rows.append(
            [
                f"$\\bar W_{{2,{k}{j}}}$",
                f"$h_{{{k}}} \\bar Z_{{{j}}}$",
                f"${signed(h[0, k])} \\cdot {signed(dZ[0, j])}$",
                fmt_number(value),
            ]
        )
for j in range(W2.shape[1]):
    rows.append([f"$\\bar b_{{2,{j}}}$", f"$\\bar Z_{{{j}}}$", f"${signed(dZ[0, j])}$", fmt_number(db2[j])])

print(f"$$\nh = {latex_matrix(h)},\\quad W_2 = {latex_matrix(W2)},\\quad \\bar Z = {latex_matrix(dZ)}\n$$")
print()
print(md_table(["entry", "formula", "numbers", "value"], rows, align=["left", "left", "left", "right"]))
print()
print(
    f"$$\n\\bar h = {latex_matrix(dh)},\\quad \\bar W_2 = {latex_matrix(dW2)},\\quad "
    f"\\bar b_2 = {latex_matrix(db2, vector='row')}\n$$"
)
print()
print(
    "The engine's `make_vjp` produced these three arrays; they equal "
    "the matrix formulas $\\bar Z W_2^\\top$, $h^\\top \\bar Z$, $\\sum_b \\bar Z_b$, and the "
    "scalar multiply-adds in the table."
)
