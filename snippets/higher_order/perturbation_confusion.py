"""Why trace levels exist: a derivative inside a derivative, with dual numbers that carry no
level (perturbation confusion) and with dual numbers that carry one, next to the engine."""

from pathlib import Path

from ad_core import grad, make_jvp
from ad_core.tracer import trace_stack
from bookkit import checked, given, load_snippet_module, md_table, text

duals = load_snippet_module(Path(__file__).with_name("_duals.py"))
derivative, leveled_derivative = duals.derivative, duals.leveled_derivative


def engine_forward(f):
    """The engine's forward mode as a derivative operator on scalars."""
    return lambda x: make_jvp(f)(x)(1.0)[1]


# (the expression, the nested function for an operator D, the point, the right answer)
examples = [
    (r"$\frac{d}{dx}\left[x \cdot \frac{d}{dy}(x + y)\big|_{y=1}\right]_{x=1}$",
     lambda D: D(lambda x: x * D(lambda y: x + y)(1.0))(1.0), 1.0),
    (r"$\frac{d}{dx}\left[x \cdot \frac{d}{dy}(x y)\big|_{y=2}\right]_{x=3}$",
     # the inner derivative is x, so the outer function is x² and its derivative 2x = 6
     lambda D: D(lambda x: x * D(lambda y: x * y)(2.0))(3.0), 6.0),
    (r"$\frac{d}{dx}\left[\frac{d}{dy}(y y)\big|_{y=x}\right]_{x=2}$",
     # no closure over x: the inner derivative is 2y at y = x, the outer one 2
     lambda D: D(lambda x: D(lambda y: y * y)(x))(2.0), 2.0),
]

# The untagged duals' answers, worked out by hand: in the first example x + y carries the
# tangent 1 (from x) + 1 (from y) = 2, so the outer function is x·2; in the second, x·y carries
# 1·2 + 3·1 = 5 and the outer function is x·5; the third has no outer value inside the inner
# derivative, so nothing is confused.
untagged_by_hand = [2.0, 5.0, 2.0]

rows = []
for (expression, nested, right), by_hand in zip(examples, untagged_by_hand, strict=True):
    rows.append([
        expression,
        given(right, shown_as=lambda v: f"{v:g}"),
        checked(nested(derivative), against=by_hand, shown_as=lambda v: f"{v:g}"),
        checked(nested(leveled_derivative), against=right, shown_as=lambda v: f"{v:g}"),
        checked(float(nested(grad)), against=right, shown_as=lambda v: f"{v:g}"),
        checked(float(nested(engine_forward)), against=right, shown_as=lambda v: f"{v:g}"),
    ])
print(md_table(["derivative", "right answer", "dual numbers, no levels", "dual numbers with levels",
                "`grad` (engine)", "`make_jvp` (engine)"], rows))
wrong_rows = [i for i, row in enumerate(rows) if row[2].value != row[1].value]
# Only the row whose inner function does not close over x escapes the confusion.
assert wrong_rows == [0, 1]
print(text("\nWithout levels, {wrong} of the {rows} rows are wrong; with levels, and in the engine, none is.",
           wrong=checked(len(wrong_rows), against=len(examples) - 1), rows=given(len(examples))))


# The page's account of the wrong rows, run: what the inner derivative returns in each row.
def inner_results(D):
    """Run each example with D, keeping what each derivative returns; the inner one finishes
    first."""
    results = []

    def keeping(f):
        return lambda x: (results.append(D(f)(x)), results[-1])[1]

    runs = []
    for _, nested, _ in examples:
        results.clear()
        nested(keeping)
        runs.append(results[0])
    return runs


Dual, LeveledDual = duals.Dual, duals.LeveledDual
untagged, leveled = inner_results(derivative), inner_results(leveled_derivative)
# First row, the leak alone: the right inner derivative of x + y is the plain number 1, and the
# untagged one is a plain number too, with x's tangent added to y's.
assert type(untagged[0]) is float and type(leveled[0]) is float
assert (untagged[0], leveled[0]) == (2.0, 1.0)
# Second row, the leak and the dropped product: the right inner derivative of x y is x itself,
# a dual of the outer level with x's tangent; the untagged one is a plain number.
assert type(leveled[1]) is LeveledDual
assert (leveled[1].value, leveled[1].tangent, leveled[1].level) == (3.0, 1.0, 0)
assert type(untagged[1]) is float and untagged[1] == 3.0 + 2.0  # x, plus x's tangent times y
# Third row: y = x arrives as a dual nested in a dual. x's tangent sits inside y's value, one
# nesting level down, apart from y's own tangent, so the inner derivative 2y still carries it.
assert type(untagged[2]) is Dual and (untagged[2].value, untagged[2].tangent) == (4.0, 2.0)
assert type(leveled[2]) is LeveledDual and (leveled[2].value, leveled[2].tangent) == (4.0, 2.0)

# The levels the engine handed out: the inner derivative's trace is one above the outer one's.
seen_levels = []


def outer(x):
    seen_levels.append(x._trace)
    return x * grad(lambda y: (seen_levels.append(y._trace), x + y)[1])(1.0)


resting = trace_stack.top  # the level of no trace: the first `trace` gets the next one
assert float(grad(outer)(1.0)) == 1.0
print(text("\nIn the first example the engine boxed $x$ at trace level {outer} and $y$ at level "
           "{inner}: `x + y` opens only the level-{inner} box, so the inner backward pass treats $x$ "
           "as a constant, and the outer trace records `x + y` as a function of $x$.",
           outer=checked(seen_levels[0], against=resting + 1),
           inner=checked(seen_levels[1], against=resting + 2)))
