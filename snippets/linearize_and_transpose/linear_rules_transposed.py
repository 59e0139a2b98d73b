"""Each linear primitive's JVP rule, linearized and transposed, against the engine's VJP rule."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp, make_vjp
from bookkit import checked, given, load_snippet_module, md_table

transposer = load_snippet_module(Path(__file__).with_name("_transpose.py"))

rng = np.random.default_rng(14)
A = rng.normal(size=(2, 3))
B = rng.normal(size=(3, 4))
C = rng.normal(size=(2, 3))

# (call as the reader would write it, the function of x, the shape of x)
cases = [
    ("`-x`", lambda x: -x, (3,)),
    ("`x + C`, `x` broadcast", lambda x: x + C, (3,)),
    ("`C - x`, `x` broadcast", lambda x: C - x, (3,)),
    ("`x * C`", lambda x: x * C, (2, 3)),
    ("`x / C`", lambda x: x / C, (2, 3)),
    ("`np.sum(x, axis=1)`", lambda x: anp.sum(x, axis=1), (2, 3)),
    ("`np.reshape(x, (3, 2))`", lambda x: anp.reshape(x, (3, 2)), (2, 3)),
    ("`np.transpose(x, (1, 2, 0))`", lambda x: anp.transpose(x, (1, 2, 0)), (2, 3, 4)),
    ("`np.broadcast_to(x, (4, 3))`", lambda x: anp.broadcast_to(x, (4, 3)), (3,)),
    ("`np.expand_dims(x, 1)`", lambda x: anp.expand_dims(x, 1), (2, 3)),
    ("`np.repeat(x, 2, axis=0)`", lambda x: anp.repeat(x, 2, axis=0), (2, 3)),
    ("`np.dot(A, x)`", lambda x: anp.dot(A, x), (3,)),
    ("`x @ B`", lambda x: x @ B, (2, 3)),
    ("`x[[0, 2, 2]]`", lambda x: x[[0, 2, 2]], (3,)),
    ("`np.concatenate([C, x])`", lambda x: anp.concatenate([C, x]), (1, 3)),
]


def program_ops(fun, x):
    """The primitives of the tangent program, in order (the root left out)."""
    _, nodes, root, _ = transposer.linearize(fun, x)
    return ", ".join(f"`{node.fun.__name__}`" for node in nodes if node is not root)


rows = []
for call, fun, shape in cases:
    x = rng.normal(size=shape)
    engine_vjp, ans = make_vjp(fun)(x)
    u = rng.normal(size=np.shape(ans))
    v = rng.normal(size=shape)
    derived = transposer.derived_vjp(fun, x)(u)
    engine = engine_vjp(u)
    _, jv = make_jvp(fun)(x)(v)
    # <u, J v> from the engine's forward mode; <J^T u, v> from the transposed program.
    rows.append([
        call,
        given(shape),
        program_ops(fun, x),
        checked(derived.shape, against=engine.shape),
        checked(float(np.max(np.abs(derived - engine))), against=0.0, atol=1e-14,
                shown_as=lambda d: f"{d:.0e}" if d else "`0`"),
        checked(float(np.vdot(derived, v)), against=float(np.vdot(u, jv)), rtol=1e-12),
    ])

print(md_table(
    ["call", "shape of `x`", "tangent program (JVP rules)", "shape of $J^\\top u$",
     "largest $\\lvert$derived $-$ engine$\\rvert$",
     "$\\langle J^\\top u, v\\rangle = \\langle u, Jv\\rangle$"],
    rows,
))
