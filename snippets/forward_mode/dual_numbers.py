"""Forward mode in its smallest working form: dual numbers, a value and a tangent side by side,
on the function of "Derivatives as linear maps". No engine, no graph."""

from pathlib import Path

import numpy as np

from ad_core import make_jvp
from ad_core import numpy as anp
from bookkit import checked, load_snippet_module, md_table

dual = load_snippet_module(Path(__file__).with_name("_dual.py"))  # the class shown above
Dual, log, sin = dual.Dual, dual.log, dual.sin


# --8<-- [start:use]
def f(x1, x2):
    return log(x1) + x1 * x2 - sin(x2)


# The tangent of the output along the direction (1, 0): seed x1's tangent with 1, x2's with 0.
along_x1 = f(Dual(2.0, 1.0), Dual(5.0, 0.0)).tangent
along_x2 = f(Dual(2.0, 0.0), Dual(5.0, 1.0)).tangent
# --8<-- [end:use]


def f_engine(x):
    return anp.log(x[0]) + x[0] * x[1] - anp.sin(x[1])


point = np.array([2.0, 5.0])
engine = [make_jvp(f_engine)(point)(direction)[1] for direction in np.eye(2)]
closed_form = [1 / point[0] + point[1], point[0] - np.cos(point[1])]

print(md_table(
    ["direction $\\dot x$", "dual numbers: tangent of $f$", "`make_jvp(f)` of the engine"],
    [
        # Here the same operations run in the same order on the same floats: compared exactly.
        ["$(1, 0)$", checked(along_x1, against=float(engine[0])),
         checked(float(engine[0]), against=closed_form[0], rtol=1e-15)],
        ["$(0, 1)$", checked(along_x2, against=float(engine[1])),
         checked(float(engine[1]), against=closed_form[1], rtol=1e-15)],
    ],
))
