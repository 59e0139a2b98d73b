"""Self-test for "Higher-order derivatives": every answer is computed and checked here before it is shown."""

import numpy as np

import ad_core.numpy as anp
from ad_core import elementwise_grad, grad, hessian, hessian_vector_product, make_jvp
from ad_core.recorder import record
from bookkit import checked, collapsible, given, latex_matrix, text

rng = np.random.default_rng(99)

# 1. The Hessian of a quadratic form.
A = rng.standard_normal((3, 3))
x = rng.standard_normal(3)
H = hessian(lambda x: x @ A @ x)(x)
print(collapsible(
    "What is the Hessian of $q(x) = x^\\top A x$ for a matrix $A$ that is not symmetric?",
    text(
        "$\\nabla q = (A + A^\\top) x$, so $H = A + A^\\top$, the same at every $x$, and "
        "symmetric even though $A$ is not. With a random $A$ of shape {shape}:\n\n"
        "$$\n\\texttt{{hessian}}(q)(x) = {H} = A + A^\\top\n$$",
        shape=given(A.shape),
        H=latex_matrix(checked(H, against=A + A.T, rtol=1e-14)),
    ),
))

# 2. Fourth derivative of sin, by nesting.
fourth = elementwise_grad(elementwise_grad(elementwise_grad(elementwise_grad(anp.sin))))
points = np.array([0.0, 0.5, 1.0])
print(collapsible(
    "Nest `elementwise_grad` four times around `anp.sin`. What comes out?",
    text(
        "$\\sin$ again: at {points} the engine returns {values}. Every rule of `sin` and `cos` "
        "is written with `anp`, so each level can be traced by the next; `elementwise_grad` "
        "works on arrays because `sin` acts on each element alone.",
        points=given(points),
        values=checked(fourth(points), against=np.sin(points), rtol=1e-12),
    ),
))


# 3. Cost of the full Hessian from Hessian-vector products.
def energy(x):
    return anp.sum(anp.tanh(x) ** 2) + anp.sum(x[1:] * x[:-1])


n = 5
point = rng.standard_normal(n)
hvp = hessian_vector_product(energy)
with record() as recording:
    columns = [hvp(point, e) for e in np.eye(n)]
passes = sum(1 for e in recording.of_kind("visit") if e.primitive == "root")
t = np.tanh(point)  # the Hessian of energy in closed form
H_energy = np.diag(2 * (1 - t**2) * (1 - 3 * t**2)) + np.eye(n, k=1) + np.eye(n, k=-1)
assert np.allclose(np.stack(columns, axis=1), H_energy, rtol=1e-12, atol=1e-14)
print(collapsible(
    "How many backward passes does it take to build a full Hessian of $n$ inputs from "
    "Hessian-vector products?",
    text(
        "$n$: one product per basis vector gives one column, and each product is one backward "
        "pass. For $n$ = {n} the recorder counted {passes} backward passes, and the stacked "
        "columns equal the Hessian. Hessian-vector products pay off when you need a few "
        "products (Newton-CG, power iteration), not the whole matrix.",
        n=given(n),
        passes=checked(passes, against=n),
    ),
))

# 4. Forward over reverse, by hand.
v = rng.standard_normal(n)
_, by_hand = make_jvp(grad(energy))(point)(v)
assert np.array_equal(by_hand, hvp(point, v))  # hessian_vector_product runs exactly this
print(collapsible(
    "Write forward-over-reverse yourself with `make_jvp` and `grad`.",
    text(
        "`make_jvp(grad(f))(x)(v)[1]`: the gradient is a function from shape `(n,)` to "
        "shape `(n,)`, and its JVP along `v` is $H v$. For `energy` at a random point it returns "
        "{product}, which is the closed-form Hessian times `v`; `hessian_vector_product` "
        "returns the same bits, because it runs exactly this.",
        product=checked(by_hand, against=H_energy @ v, rtol=1e-12, atol=1e-14),
    ),
))
