"""The worked example: h = [2, -1], W2 = [[1, 3], [4, 2]], dZ = [0.5, -0.25], regenerated."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import checked, fmt_number, given, latex_matrix, latex_number, md_table, text

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


def signed(x: float):
    """An input entry for LaTeX, in parentheses when negative."""
    shown = latex_number(given(x))
    return text("({x})", x=shown) if x < 0 else shown


def value_cell(by_hand: float, engine: float):
    # The scalar multiply-adds against the engine's entry: both are exact in binary here, but the
    # tolerance is there for any other input.
    return text("{v}", v=checked(engine, against=by_hand, atol=1e-15, shown_as=fmt_number))


# Each entry as the scalar multiply-adds it stands for, printed from the same arrays.
rows = []
columns = range(W2.shape[1])
for k in range(W2.shape[0]):
    value = sum(dZ[0, j] * W2[k, j] for j in columns)
    # One template per cell, so that its words and LaTeX are vouched for as one piece of math.
    formula = (
        "$" + " + ".join("\\bar Z_{{{j" + str(j) + "}}} W_{{2,{k}{j" + str(j) + "}}}" for j in columns) + "$"
    )
    numbers = "$" + " + ".join("{a" + str(j) + "} \\cdot {b" + str(j) + "}" for j in columns) + "$"
    rows.append(
        [
            text("$\\bar h_{{{k}}}$", k=given(k)),
            text(formula, k=given(k), **{f"j{j}": given(j) for j in columns}),
            text(
                numbers,
                **{f"a{j}": signed(dZ[0, j]) for j in columns},
                **{f"b{j}": signed(W2[k, j]) for j in columns},
            ),
            value_cell(value, dh[0, k]),
        ]
    )
for k in range(W2.shape[0]):
    for j in range(W2.shape[1]):
        rows.append(
            [
                text("$\\bar W_{{2,{k}{j}}}$", k=given(k), j=given(j)),
                text("$h_{{{k}}} \\bar Z_{{{j}}}$", k=given(k), j=given(j)),
                text("${a} \\cdot {b}$", a=signed(h[0, k]), b=signed(dZ[0, j])),
                value_cell(h[0, k] * dZ[0, j], dW2[k, j]),
            ]
        )
for j in range(W2.shape[1]):
    rows.append(
        [
            text("$\\bar b_{{2,{j}}}$", j=given(j)),
            text("$\\bar Z_{{{j}}}$", j=given(j)),
            text("${a}$", a=signed(dZ[0, j])),
            value_cell(dZ[0, j], db2[j]),
        ]
    )

print(
    text(
        "$$\nh = {h},\\quad W_2 = {W2},\\quad \\bar Z = {dZ}\n$$",
        h=latex_matrix(given(h)),
        W2=latex_matrix(given(W2)),
        dZ=latex_matrix(given(dZ)),
    )
)
print()
print(md_table(["entry", "formula", "numbers", "value"], rows, align=["left", "left", "left", "right"]))
print()
print(
    text(
        "$$\n\\bar h = {dh},\\quad \\bar W_2 = {dW2},\\quad \\bar b_2 = {db2}\n$$",
        # The engine's arrays against the matrix formulas, computed by NumPy.
        dh=latex_matrix(checked(dh, against=dZ @ W2.T)),
        dW2=latex_matrix(checked(dW2, against=h.T @ dZ)),
        db2=latex_matrix(checked(db2, against=dZ.sum(axis=0)), vector="row"),
    )
)
print()
print(
    "The engine's `make_vjp` produced these three arrays; they equal "
    "the matrix formulas $\\bar Z W_2^\\top$, $h^\\top \\bar Z$, $\\sum_b \\bar Z_b$, and the "
    "scalar multiply-adds in the table."
)
