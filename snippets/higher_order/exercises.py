"""Self-test for chapter 9: every answer is computed and checked here before it is shown."""

import numpy as np

import ad_core.numpy as anp
from ad_core import elementwise_grad, grad, hessian, hessian_vector_product, make_jvp
from ad_core.inspect import record
from bookkit import assert_shape_then_close, collapsible, fmt_array, latex_matrix

rng = np.random.default_rng(99)

# 1. The Hessian of a quadratic form.
A = rng.standard_normal((3, 3))
x = rng.standard_normal(3)
H = hessian(lambda x: x @ A @ x)(x)
assert_shape_then_close(H, A + A.T, rtol=1e-14)
print(collapsible(
    "What is the Hessian of $q(x) = x^\\top A x$ for a matrix $A$ that is not symmetric?",
    "$\\nabla q = (A + A^\\top) x$, so $H = A + A^\\top$, the same at every $x$, and "
    "symmetric even though $A$ is not. With a random $A$ of shape `(3, 3)`:\n\n"
    f"$$\nA + A^\\top = {latex_matrix(A + A.T)} = \\texttt{{hessian}}(q)(x)\n$$",
))

# 2. Fourth derivative of sin, by nesting.
fourth = elementwise_grad(elementwise_grad(elementwise_grad(elementwise_grad(anp.sin))))
points = np.array([0.0, 0.5, 1.0])
assert_shape_then_close(fourth(points), np.sin(points), rtol=1e-12)
print(collapsible(
    "Nest `elementwise_grad` four times around `anp.sin`. What comes out?",
    f"$\\sin$ again: at `{fmt_array(points)}` the engine returns `{fmt_array(fourth(points))}`. "
    "Every rule of `sin` and `cos` is written with `anp`, so each level can be traced by the "
    "next; `elementwise_grad` works on arrays because `sin` acts on each element alone.",
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
assert_shape_then_close(np.stack(columns, axis=1), hessian(energy)(point), rtol=1e-12)
assert passes == n
print(collapsible(
    "How many backward passes does it take to build a full Hessian of $n$ inputs from "
    "Hessian-vector products?",
    f"$n$: one product per basis vector gives one column. For $n = {n}$ the recorder "
    f"counted {passes} backward passes, and the stacked columns equal `hessian(energy)`. "
    "Hessian-vector products pay off when you need a few products (Newton-CG, power "
    "iteration), not the whole matrix.",
))

# 4. Forward over reverse, by hand.
v = rng.standard_normal(n)
_, by_hand = make_jvp(grad(energy))(point)(v)
assert_shape_then_close(by_hand, hvp(point, v), rtol=0.0)
print(collapsible(
    "Write forward-over-reverse yourself with `make_jvp` and `grad`.",
    "`make_jvp(grad(f))(x)(v)[1]`: the gradient is a function from shape `(n,)` to "
    "shape `(n,)`, and its JVP along `v` is $H v$. For `energy` at a random point it returns "
    f"`{fmt_array(by_hand)}`, bit for bit what `hessian_vector_product` returns.",
))
