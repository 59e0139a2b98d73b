"""Dual numbers, the smallest forward mode: shown on "Forward mode" (dual_numbers.py), and used
again by "Higher-order derivatives" (snippets/higher_order/_duals.py) for perturbation
confusion. No prints."""

import math


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

    __radd__, __rmul__ = __add__, __mul__  # 2 + x, 2 * x


# f(a + bε) = f(a) + f'(a)·b·ε follows from ε² = 0 only through f's Taylor series, which
# this class cannot sum, so here it is *defined*, with f' typed by hand.
def log(x):
    return Dual(math.log(x.value), x.tangent / x.value)  # log' = 1/x


def sin(x):
    return Dual(math.sin(x.value), x.tangent * math.cos(x.value))  # sin' = cos
# --8<-- [end:dual]
