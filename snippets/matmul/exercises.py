"""Self-test for the matrix multiplication chapter: every answer computed and checked here."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from bookkit import assert_shape_then_close, central_differences, checked, collapsible, given, text

rng = np.random.default_rng(77)
batch, n_in, n_out = 3, 4, 2

# Exercise 1: PyTorch's Linear stores W as (out, in) and computes y = x Wᵀ + b.
x = rng.normal(size=(batch, n_in))
W = rng.normal(size=(n_out, n_in))
b = rng.normal(size=n_out)
G = rng.normal(size=(batch, n_out))


def linear(x, W, b):
    return anp.matmul(x, anp.transpose(W)) + b


dx = make_vjp(lambda v: linear(v, W, b))(x)[0](G)
dW = make_vjp(lambda w: linear(x, w, b))(W)[0](G)
db = make_vjp(lambda c: linear(x, W, c))(b)[0](G)
assert_shape_then_close(dx, G @ W)
assert_shape_then_close(dW, G.T @ x)
assert_shape_then_close(db, G.sum(axis=0))

print(
    collapsible(
        text(
            "Exercise {number}. PyTorch {version}'s `torch.nn.Linear` stores $W$ with shape (out, in) "
            "and computes $y = x W^\\top + b$. Write `dx`, `dW` and `db`. "
            "<!-- tested: tests/snippets/test_matmul.py::test_pytorch_linear_layout_and_gradients -->",
            number=given(1),
            # The version the chapter's tests run (tests/snippets/test_matmul.py checks it).
            version=given("2.13"),
        ),
        text(
            "Align shapes. `dx` must be {x} from `G` {G} and `W` {W}: `dx = G @ W`. `dW` must be "
            "{W}: `dW = G.T @ x`. `db = G.sum(axis=0)`, shape {b}. Compared with $Z = hW$ the "
            "transpose moved from the gradient of the input to the gradient of the weight. The "
            "engine's VJPs of this layer match all three, and so does PyTorch's autograd (a test "
            "runs it). "
            "<!-- tested: tests/snippets/test_matmul.py::test_pytorch_linear_layout_and_gradients -->",
            x=checked(dx.shape, against=x.shape),
            G=given(G.shape),
            W=checked(dW.shape, against=W.shape),
            b=checked(db.shape, against=b.shape),
        ),
    )
)

# Exercise 2: the gradient of tr(A B) with respect to A.
A = rng.normal(size=(3, 4))
B = rng.normal(size=(4, 3))
trace_gradient = grad(lambda a: anp.trace(anp.matmul(a, B)))(A)
assert_shape_then_close(trace_gradient, B.T)
assert_shape_then_close(
    trace_gradient, central_differences(lambda a: float(np.trace(a @ B)), A), rtol=1e-6, atol=1e-8
)

print(
    collapsible(
        text(
            "Exercise {number}. What is the gradient of $\\operatorname{{tr}}(AB)$ with respect to $A$, "
            "for $A$ of shape {A} and $B$ of shape {B}?",
            number=given(2),
            A=given(A.shape),
            B=given(B.shape),
        ),
        text(
            "$\\operatorname{{tr}}(AB) = \\sum_{{i,k}} A_{{ik}} B_{{ki}}$, so "
            "$\\partial/\\partial A_{{ik}} = B_{{ki}}$: the gradient is $B^\\top$, shape "
            "{shape}. The engine agrees, and so do central differences. As a matmul VJP: $Z = AB$ "
            "with $\\bar Z = I$ gives $\\bar A = I B^\\top$.",
            shape=checked(trace_gradient.shape, against=B.T.shape),
        ),
    )
)

# Exercise 3: the gradient of the quadratic form xᵀ M x.
M = rng.normal(size=(4, 4))
vector = rng.normal(size=4)
quadratic_gradient = grad(lambda v: anp.dot(v, anp.matmul(M, v)))(vector)
assert_shape_then_close(quadratic_gradient, (M + M.T) @ vector)
assert not np.allclose(quadratic_gradient, 2 * M @ vector)
# Each use of x on its own, the other held fixed: the left factor xᵀ receives M x, the right
# factor (inside M x) receives Mᵀ x.
through_left = grad(lambda u: anp.dot(u, anp.matmul(M, vector)))(vector)
through_right = grad(lambda u: anp.dot(vector, anp.matmul(M, u)))(vector)
assert_shape_then_close(through_left, M @ vector)
assert_shape_then_close(through_right, M.T @ vector)
assert not np.allclose(through_left, M.T @ vector)

print(
    collapsible(
        text(
            "Exercise {number}. What is the gradient of $x^\\top M x$ for a square, non-symmetric $M$?",
            number=given(3),
        ),
        "$x$ is used twice, once on each side, so two contributions add (fan-out): the left "
        "factor $x^\\top$ receives $M x$ and the right factor receives $M^\\top x$ (the engine, "
        "differentiating each use with the other held fixed, gives exactly these). The gradient is "
        "$(M + M^\\top)x$. The tempting $2Mx$ equals it for every $x$ only when $M$ is symmetric; "
        "for this random $M$ it differs from the engine's answer.",
    )
)

# Exercise 4: a shared weight in a batched matmul, as one ordinary matmul.
K, rows, inner, cols = 2, 3, 4, 5
stack = rng.normal(size=(K, rows, inner))
shared = rng.normal(size=(inner, cols))
upstream = rng.normal(size=(K, rows, cols))
shared_gradient = make_vjp(lambda w: anp.matmul(stack, w))(shared)[0](upstream)
flattened = stack.reshape(K * rows, inner).T @ upstream.reshape(K * rows, cols)
assert_shape_then_close(shared_gradient, flattened)

print(
    collapsible(
        text(
            "Exercise {number}. $A$ of shape {A} is multiplied by a shared $W$ of shape {W}. Write "
            "$W$'s gradient as a single matmul of two matrices.",
            number=given(4),
            A=given(stack.shape),
            W=given(shared.shape),
        ),
        text(
            "The batch axis is broadcast onto W, so W's gradient sums $A_k^\\top G_k$ over $k$. "
            "Stacking the batches as extra rows does that sum inside the product: "
            "`A.reshape({stacked}, {inner}).T @ G.reshape({stacked}, {cols})`, shape {shape}. The "
            "engine gets the same result from `matmul_vjp_1`, which computes the batched products "
            "and lets `unbroadcast` sum them.",
            stacked=given(K * rows),
            inner=given(inner),
            cols=given(cols),
            shape=checked(flattened.shape, against=shared_gradient.shape),
        ),
    )
)
