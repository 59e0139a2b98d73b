"""Forward mode in its smallest working form: dual numbers, a value and a tangent side by side,
on the function of "Derivatives as linear maps". No engine, no graph."""

import math

import numpy as np

from ad_core import make_jvp
from ad_core import numpy as anp
from bookkit import checked, md_table


# --8<-- [start:dual]
class Dual:
    """a + b·ε with ε² = 0: `value` is a, `tangent` is b, the derivative along one direction."""

    def __init__(self, value, tangent=0.0):
        self.value, self.tangent = value, tangent

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value + other.value, self.tangent + other.tangent)

    def __sub__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value - other.value, self.tangent - other.tangent)

    def __mul__(self, other):  # (a + bε)(c + dε) = ac + (ad + bc)ε, because ε² = 0
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value * other.value,
                    self.tangent * other.value + self.value * other.tangent)


def log(x):
    return Dual(math.log(x.value), x.tangent / x.value)


def sin(x):
    return Dual(math.sin(x.value), x.tangent * math.cos(x.value))


def f(x1, x2):
    return log(x1) + x1 * x2 - sin(x2)


# The tangent of the output along the direction (1, 0): seed x1's tangent with 1, x2's with 0.
along_x1 = f(Dual(2.0, 1.0), Dual(5.0, 0.0)).tangent
along_x2 = f(Dual(2.0, 0.0), Dual(5.0, 1.0)).tangent
# --8<-- [end:dual]


def f_engine(x):
    return anp.log(x[0]) + x[0] * x[1] - anp.sin(x[1])


point = np.array([2.0, 5.0])
engine = [make_jvp(f_engine)(point)(direction)[1] for direction in np.eye(2)]
closed_form = [1 / point[0] + point[1], point[0] - np.cos(point[1])]

print(md_table(
    ["direction $\\dot x$", "dual numbers: tangent of $f$", "`make_jvp(f)` of the engine"],
    [
        # The same operations in the same order on the same floats: the same bits, not just close.
        ["$(1, 0)$", checked(along_x1, against=float(engine[0])),
         checked(float(engine[0]), against=closed_form[0], rtol=1e-15)],
        ["$(0, 1)$", checked(along_x2, against=float(engine[1])),
         checked(float(engine[1]), against=closed_form[1], rtol=1e-15)],
    ],
))
