"""Self-test for the chapter on derivatives as linear maps; every answer is computed and checked."""

import numpy as np

from ad_core import grad, jacobian, make_jvp, make_vjp
from ad_core import numpy as anp
from ad_core.inspect import record
from bookkit import collapsible, fmt_array, latex_matrix


def f(x):
    x1, x2 = x[0], x[1]
    return anp.log(x1) + x1 * x2 - anp.sin(x2)


point = np.array([2.0, 5.0])

# 1. The Jacobian of an elementwise function is diagonal.
x = np.array([0.0, 1.0, 2.0])
J_sin = jacobian(anp.sin)(x)
assert J_sin.shape == (3, 3)
assert np.array_equal(J_sin, np.diag(np.diag(J_sin)))
assert np.allclose(np.diag(J_sin), np.cos(x), rtol=1e-15)
print(
    collapsible(
        f"1. What are the shape and the structure of the Jacobian of `anp.sin` at `x = {fmt_array(x)}`?",
        f"`jacobian(anp.sin)(x)` has shape `{J_sin.shape}`: one row per output, one column per "
        "input. Output $i$ depends only on input $i$, so every entry off the diagonal is zero "
        "and the diagonal holds $\\cos x_i$:\n\n"
        f"$$J = {latex_matrix(J_sin)}.$$\n\n"
        "A JVP with an elementwise function is therefore an elementwise product, "
        "$J v = \\cos(x) \\odot v$, and so is a VJP. Rules never build this matrix.",
    )
)

# 2. The other tangent direction gives the other partial derivative.
_, tangent_x2 = make_jvp(f)(point)(np.array([0.0, 1.0]))
gradient = grad(f)(point)
assert np.isclose(tangent_x2, gradient[1], rtol=1e-14)
assert np.isclose(tangent_x2, point[0] - np.cos(point[1]), rtol=1e-14)
print(
    collapsible(
        r"2. Rerun the tangent trace with $\dot x_1 = 0$, $\dot x_2 = 1$. What is $\dot y$?",
        f"`make_jvp(f)(point)([0.0, 1.0])` returns $\\dot y = {fmt_array(float(tangent_x2))}$, "
        "which is $\\partial f/\\partial x_2 = x_1 - \\cos x_2$, the second entry of the "
        f"gradient ${fmt_array(gradient)}$ that one reverse pass produced. Forward mode needed "
        "a second pass to get it.",
    )
)

# 3. Forward mode needs n passes for a gradient; reverse mode needs one.
n_small = 8
weights = np.random.default_rng(3).standard_normal(n_small)


def loss(w):
    return anp.sum(anp.tanh(w * weights))


w0 = np.random.default_rng(4).standard_normal(n_small)
with record() as forward_recording:
    forward_gradient = np.array([make_jvp(loss)(w0)(e)[1] for e in np.eye(n_small)])
with record() as reverse_recording:
    reverse_gradient = grad(loss)(w0)
assert np.allclose(forward_gradient, reverse_gradient, rtol=1e-13)
output_visits = [
    event
    for event in reverse_recording.of_kind("visit")
    if event.node == reverse_recording.of_kind("visit")[0].node
]
per_trace = len(reverse_recording.of_kind("forward"))
forward_traces = len(forward_recording.of_kind("forward")) // per_trace
assert forward_traces == n_small and len(output_visits) == 1
big_n = 10**6
print(
    collapsible(
        f"3. A loss has $n = {big_n:,}$ parameters and one output. How many passes does each "
        "mode need for the whole gradient?",
        f"Forward mode gets one column of the $1 \\times n$ Jacobian per pass: {big_n:,} passes. "
        "Reverse mode gets the whole row from one trace and one backward pass. "
        f"Recorded on a small case with $n = {n_small}$: forward mode traced the loss "
        f"{forward_traces} times, reverse mode traced it once and started "
        f"{len(output_visits)} backward pass; both gradients agree.",
    )
)


# 4. A VJP with a basis covector picks one row of the Jacobian.
def g(x):
    return anp.stack([x[0] * x[1], anp.sin(x[2]) + x[0]])


x3 = np.array([1.0, 2.0, 0.5])
vjp, _ = make_vjp(g)(x3)
J = jacobian(g)(x3)
rows = [vjp(e) for e in np.eye(2)]
for index, row in enumerate(rows):
    assert np.array_equal(row, J[index])
print(
    collapsible(
        "4. What does a VJP with $u = e_i$ (a one-hot covector) return?",
        "Row $i$ of the Jacobian, $e_i^\\top J$. For the map of the section on products: "
        f"$e_0^\\top J = {latex_matrix(rows[0][None, :])}$ and "
        f"$e_1^\\top J = {latex_matrix(rows[1][None, :])}$, the rows of "
        f"$J = {latex_matrix(J)}$. This is exactly how `jacobian` builds the matrix: one VJP per "
        "output element.",
    )
)
