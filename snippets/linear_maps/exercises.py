"""Self-test for the chapter on derivatives as linear maps; every answer is computed and checked."""

import numpy as np

from ad_core import grad, jacobian, make_jvp, make_vjp
from ad_core import numpy as anp
from ad_core.recorder import record
from bookkit import checked, collapsible, fmt_array, given, latex_matrix, text


def f(x):
    x1, x2 = x[0], x[1]
    return anp.log(x1) + x1 * x2 - anp.sin(x2)


point = np.array([2.0, 5.0])


def example_closed_form(x):
    return np.array([1 / x[0] + x[1], x[0] - np.cos(x[1])])


# 1. The Jacobian of an elementwise function is diagonal.
x = np.array([0.0, 1.0, 2.0])
J_sin = jacobian(anp.sin)(x)
assert J_sin.shape == (3, 3)
assert np.array_equal(J_sin, np.diag(np.diag(J_sin)))
assert np.allclose(np.diag(J_sin), np.cos(x), rtol=1e-15)
print(
    collapsible(
        text(
            "1. What are the shape and the structure of the Jacobian of `anp.sin` at `x = {x}`?",
            x=fmt_array(given(x)),
        ),
        text(
            "`jacobian(anp.sin)(x)` has shape {shape}: one row per output, one column per "
            "input. Output $i$ depends only on input $i$, so every entry off the diagonal is zero "
            "and the diagonal holds $\\cos x_i$:\n\n$$J = {J}.$$\n\n"
            "A JVP with an elementwise function is therefore an elementwise product, "
            "$J v = \\cos(x) \\odot v$, and so is a VJP. Rules never build this matrix.",
            shape=checked(J_sin.shape, against=x.shape + x.shape),
            # np.cos and the engine's rule may differ in the last bit.
            J=latex_matrix(checked(J_sin, against=np.diag(np.cos(x)), rtol=1e-15)),
        ),
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
        text(
            "`make_jvp(f)(point)([0.0, 1.0])` returns $\\dot y = {tangent}$, which is "
            "$\\partial f/\\partial x_2 = x_1 - \\cos x_2$, the second entry of the gradient "
            "{gradient} that one reverse pass produced. Forward mode needed a second pass to get it.",
            tangent=fmt_array(checked(float(tangent_x2), against=point[0] - np.cos(point[1]), rtol=1e-14)),
            gradient=text(
                "${g}$",
                g=fmt_array(checked(gradient, against=example_closed_form(point), rtol=1e-14)),
            ),
        ),
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
        text(
            "3. A loss has $n = {big_n:,}$ parameters and one output. How many passes does each "
            "mode need for the whole gradient?",
            big_n=given(big_n),
        ),
        text(
            "Forward mode gets one column of the $1 \\times n$ Jacobian per pass: {big_n:,} "
            "passes. Reverse mode gets the whole row from one trace and one backward pass. "
            "Recorded on a small case with $n = {n}$: forward mode traced the loss {traces} times, "
            "reverse mode traced it once and started {backward} backward pass; both gradients agree.",
            big_n=given(big_n),
            n=given(n_small),
            traces=checked(forward_traces, against=n_small),
            backward=checked(len(output_visits), against=1),
        ),
    )
)


# 4. A VJP with a basis covector picks one row of the Jacobian.
def g(x):
    return anp.stack([x[0] * x[1], anp.sin(x[2]) + x[0]])


x3 = np.array([1.0, 2.0, 0.5])
vjp, _ = make_vjp(g)(x3)
J = jacobian(g)(x3)
rows = [vjp(e) for e in np.eye(2)]
J_by_hand = np.array([[x3[1], x3[0], 0.0], [1.0, 0.0, np.cos(x3[2])]])
print(
    collapsible(
        "4. What does a VJP with $u = e_i$ (a one-hot covector) return?",
        text(
            "Row $i$ of the Jacobian, $e_i^\\top J$. For the map of the section on products: "
            "$e_0^\\top J = {row0}$ and $e_1^\\top J = {row1}$, the rows of $J = {J}$. This is "
            "exactly how `jacobian` builds the matrix: one VJP per output element.",
            row0=latex_matrix(checked(rows[0][None, :], against=J_by_hand[:1], rtol=1e-15)),
            row1=latex_matrix(checked(rows[1][None, :], against=J_by_hand[1:], rtol=1e-15)),
            J=latex_matrix(checked(J, against=np.stack(rows), rtol=1e-15)),
        ),
    )
)
