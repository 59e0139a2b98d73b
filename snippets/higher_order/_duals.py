"""Dual numbers for "Why levels": one without a level (perturbation confusion) and one with a
level per derivative in progress, the way the engine's trace levels work. The first is the
`Dual` class of "Forward mode", loaded from its folder."""

from bookkit import load_snippet_module

# --8<-- [start:untagged]
Dual = load_snippet_module("snippets/forward_mode/_dual.py").Dual  # Forward mode's class


def derivative(f):  # one ε for every derivative in progress: no level
    return lambda x: f(Dual(x, 1.0)).tangent
# --8<-- [end:untagged]


# --8<-- [start:tagged]
class LeveledDual:
    """value + tangent·ε_level: each derivative in progress has its own ε. The parts may be
    duals of lower levels (the derivatives outside this one)."""

    def __init__(self, value, tangent, level):
        self.value, self.tangent, self.level = value, tangent, level

    def parts(self, level):
        """(value, tangent) along ε_level; a number or a lower-level dual is a constant there."""
        if isinstance(self, LeveledDual) and self.level == level:
            return self.value, self.tangent
        return self, 0.0

    def __add__(self, other):
        level = max(_level(self), _level(other))  # open only the innermost level, as `primitive` does
        (a, da), (b, db) = LeveledDual.parts(self, level), LeveledDual.parts(other, level)
        return LeveledDual(a + b, da + db, level)

    def __mul__(self, other):
        level = max(_level(self), _level(other))
        (a, da), (b, db) = LeveledDual.parts(self, level), LeveledDual.parts(other, level)
        return LeveledDual(a * b, da * b + a * db, level)

    __radd__, __rmul__ = __add__, __mul__


def _level(x) -> int:
    return x.level if isinstance(x, LeveledDual) else -1


levels_in_use = [-1]  # the top level, as in the engine's TraceStack


def leveled_derivative(f):
    def derivative_at(x):
        levels_in_use[0] += 1  # a new level for this derivative, like trace_stack.new_trace()
        level = levels_in_use[0]
        try:
            out = f(LeveledDual(x, 1.0, level))
        finally:
            levels_in_use[0] -= 1
        return LeveledDual.parts(out, level)[1]  # the tangent along *this* derivative's ε only
    return derivative_at
# --8<-- [end:tagged]
