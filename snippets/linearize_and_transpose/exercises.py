"""Self-test for "Linearize and transpose": every answer is computed and checked here."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from bookkit import assert_shape_then_close, checked, collapsible, given, load_snippet_module, text

transposer = load_snippet_module(Path(__file__).with_name("_transpose.py"))
rng = np.random.default_rng(3)

# 1. The transpose of a sum over an axis is a broadcast.
x = rng.normal(size=(2, 3))
u = np.array([1.0, -2.0, 0.5])
derived = transposer.derived_vjp(lambda x: anp.sum(x, axis=0), x)(u)
engine = make_vjp(lambda x: anp.sum(x, axis=0))(x)[0](u)
assert_shape_then_close(derived, engine, rtol=0.0)
print(collapsible(
    text("For `x` of shape {shape}, what is the transpose of `np.sum(x, axis=0)` applied to "
         "`u` = {u}?", shape=given(x.shape), u=given(u)),
    text("Each column sum copies back to every entry of its column: {answer}, shape {answer_shape}. "
         "The engine's hand-written VJP rule of `sum` gives the same.",
         answer=checked(derived, against=np.tile(u, (2, 1))),
         answer_shape=checked(derived.shape, against=x.shape)),
))
print()

# 2. The tangent program of x * x uses the multiply rule twice.
x = np.array([0.5, -1.5])
_, nodes, root, _ = transposer.linearize(lambda x: x * x, x)
lines = [node.fun.__name__ for node in nodes if node is not root]
u = np.ones(2)
print(collapsible(
    text("Linearize `x * x` at `x` = {x}. How many lines does the tangent program have, "
         "and what does transposing it give for `u` = {u}?", x=given(x), u=given(u)),
    text("{count} lines, {lines}: `t0 * x` and `x * t0`, each "
         "linear in `t0`, then their sum. Transposed, each `multiply` sends back `u * x`, and "
         "the two arrivals at `t0` add: {answer}, which is $2 x u$.",
         count=checked(len(lines), against=3),
         lines=checked(", ".join(f"`{name}`" for name in lines), against="`multiply`, `multiply`, `add`"),
         answer=checked(transposer.derived_vjp(lambda x: x * x, x)(u), against=2 * x * u)),
))
print()

# 3. Nonlinear primitives need no transpose rule of their own.
x = rng.uniform(0.5, 1.5, size=(3,))
used = set()
for fun in (anp.exp, anp.sin, anp.tanh, anp.log, anp.sqrt):
    _, nodes, root, _ = transposer.linearize(fun, x)
    used |= {node.fun.__name__ for node in nodes if node is not root}
    expected = grad(lambda x, fun=fun: anp.sum(fun(x)))(x)
    assert_shape_then_close(transposer.derived_vjp(fun, x)(np.ones(3)), expected, rtol=1e-12)
print(collapsible(
    text("How many transpose rules does the transposer need for the VJPs of `exp`, `sin`, "
         "`tanh`, `log` and `sqrt` ({count} primitives)?", count=given(5)),
    text("Their JVP rules multiply or divide the tangent by a primal constant, so the tangent "
         "programs use only {ops}: {rules} transpose rules, and each derived VJP equals "
         "`grad` (checked to a relative tolerance of {rtol}).",
         ops=checked(", ".join(f"`{name}`" for name in sorted(used)), against="`divide`, `multiply`"),
         rules=checked(len(used), against=2), rtol=given(1e-12, shown_as=lambda r: f"`{r:.0e}`")),
))
