"""The tempting wrong transpose of `x @ B` (forgetting the transpose of `B`), and what catches it."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp, make_vjp
from bookkit import checked, load_snippet_module, md_table

transposer = load_snippet_module(Path(__file__).with_name("_transpose.py"))

rng = np.random.default_rng(7)
B = rng.normal(size=(3, 3))  # square, so that the wrong rule's shape is right
x, u, v = (rng.normal(size=(2, 3)) for _ in range(3))


def f(x):
    return x @ B


# --8<-- [start:wrong]
def wrong_matmul_transpose(ct, argnum, args, kwargs, in_shape):
    return ct @ args[1]  # should be ct @ B.T
# --8<-- [end:wrong]


_, jv = make_jvp(f)(x)(v)
right = transposer.derived_vjp(f, x)(u)
original = transposer.TRANSPOSE_RULES[anp.matmul]
transposer.TRANSPOSE_RULES[anp.matmul] = wrong_matmul_transpose
try:
    wrong = transposer.derived_vjp(f, x)(u)
finally:
    transposer.TRANSPOSE_RULES[anp.matmul] = original
engine = make_vjp(f)(x)[0](u)

forward_side = float(np.vdot(u, jv))
print(md_table(
    ["transpose rule", "shape of $J^\\top u$", "$\\langle J^\\top u, v\\rangle$", "$\\langle u, Jv\\rangle$",
     "largest $\\lvert J^\\top u - \\text{engine}\\rvert$"],
    [
        ["`ct @ B.T` (right)", checked(right.shape, against=x.shape),
         checked(float(np.vdot(right, v)), against=forward_side, rtol=1e-12),
         checked(forward_side, against=float(np.sum(u * (v @ B))), rtol=1e-12),
         checked(float(np.max(np.abs(right - engine))), against=0.0, atol=1e-14)],
        ["`ct @ B` (wrong)", checked(wrong.shape, against=x.shape),
         checked(float(np.vdot(wrong, v)), against=float(np.sum((u @ B) * v)), rtol=1e-12),
         checked(forward_side, against=float(np.sum(u * (v @ B))), rtol=1e-12),
         checked(float(np.max(np.abs(wrong - engine))), against=float(np.max(np.abs(u @ (B - B.T)))),
                 rtol=1e-12)],
    ],
))
# The wrong rule passes the shape check and fails the inner-product check.
assert wrong.shape == engine.shape
assert abs(float(np.vdot(wrong, v)) - forward_side) > 1e-3 * abs(forward_side)
