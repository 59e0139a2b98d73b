"""Max-pooling at a tie: the engine splits the gradient, the argmax gather gives it to one entry."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from bookkit import checked, given, latex_matrix, load_snippet_module, text

conv = load_snippet_module(Path(__file__).with_name("_convolution.py"))
pool, stride = 2, 1
x = np.array([1.0, 3.0, 3.0, 0.0, 2.0, 2.0])  # a tie inside the second and the last window
dy = np.ones(len(x) - pool + 1)

# --8<-- [start:tie]
engine_dx = make_vjp(lambda a: conv.max_pool(a, pool, stride))(x)[0](dy)  # anp.max's rule
gather_dx = conv.max_pool_input_grad(x, dy, pool, stride)  # first winner of each window
# --8<-- [end:tie]
# Independently, by hand: windows (1,3) (3,3) (3,0) (0,2) (2,2); a tie shares or goes first.
shared = np.array([0.0, 1.5, 1.5, 0.0, 1.5, 0.5])
first = np.array([0.0, 2.0, 1.0, 0.0, 2.0, 0.0])

print(
    text(
        "$$x = {x}, \\quad \\bar y = \\mathbf 1: \\qquad "
        "\\bar x_{{\\text{{engine}}}} = {engine}, \\quad \\bar x_{{\\text{{argmax gather}}}} = {gather}$$",
        x=given(x, shown_as=lambda a: latex_matrix(a, vector="row")),
        engine=checked(engine_dx, against=shared, shown_as=lambda a: latex_matrix(a, vector="row")),
        gather=checked(gather_dx, against=first, shown_as=lambda a: latex_matrix(a, vector="row")),
    )
)
print()
print(
    text(
        "Both sum to {total}, the sum of $\\bar y$: each window passes its whole gradient down, "
        "to one winner or shared among its winners.",
        total=checked(float(engine_dx.sum()), against=float(gather_dx.sum())),
    )
)
