"""Which `ad_core.numpy` functions are primitives, and what a primitive does with plain and with
boxed arguments."""

import warnings

import numpy as np

from ad_core import make_jvp, make_vjp
from ad_core import numpy as anp
from ad_core.tracer import Box
from bookkit import central_differences, checked, md_table, yes_no

# --8<-- [start:plain_call]
plain = anp.sin(0.5)  # no box among the arguments: the wrapper just calls numpy.sin
assert anp.sin.fun is np.sin and type(plain) is type(np.sin(0.5))
# --8<-- [end:plain_call]

x = np.array([0.5, -1.5, 2.5])
v = np.array([1.0, 0.25, -0.5])
other = np.array([0.3, 0.7, -1.1])
# Each function as a function of its first argument, at `x`.
functions = [
    ("sin", anp.sin, lambda a: anp.sin(a)),
    ("multiply", anp.multiply, lambda a: anp.multiply(a, other)),
    ("sum", anp.sum, lambda a: anp.sum(a)),
    ("dot", anp.dot, lambda a: anp.dot(a, other)),
    ("array_getitem", anp.array_getitem, lambda a: anp.array_getitem(a, 1)),
    ("float_power", anp.float_power, lambda a: anp.float_power(a, 2.0)),
    ("argmax", anp.argmax, lambda a: anp.argmax(a)),
    ("floor", anp.floor, lambda a: anp.floor(a)),
    ("shape", anp.shape, lambda a: anp.shape(a)),
    ("zeros", anp.zeros, lambda a: anp.zeros(3)),
]


def registered(function, mode):
    """What the rule tables say: a rule for argument 0, or one for every argument."""
    rules = getattr(function, f"{mode}s", {})
    return bool(rules.get(0) or getattr(function, f"{mode}_every_argnum", None))


def directional_difference(of_first, step=1e-6):
    """(f(x + h v) - f(x - h v)) / 2h: the tangent J v without the engine."""
    return (np.asarray(of_first(x + step * v)) - np.asarray(of_first(x - step * v))) / (2 * step)


def differentiates(of_first, mode):
    """Really differentiate with respect to argument 0: True when the derivative comes back and
    agrees with central differences, False when the engine reports a missing rule."""
    try:
        if mode == "vjp":
            vjp, value = make_vjp(of_first)(x)
            u = np.ones_like(value)
            derivative = vjp(u)
            expected = central_differences(lambda a: np.sum(u * of_first(a)), x)
        else:
            _, derivative = make_jvp(of_first)(x)(v)
            expected = directional_difference(of_first)
    except NotImplementedError as error:
        assert f"no {mode.upper()} rule" in str(error), error
        return False
    return bool(np.allclose(derivative, expected, rtol=1e-6, atol=1e-8))


def returns_a_box(of_first):
    """Call the function on a box inside a real trace and look at what comes back."""
    result = {}

    def probe(a):
        result["out"] = of_first(a)
        return anp.sum(a)

    make_vjp(probe)(x)
    return isinstance(result["out"], Box)


rows = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # an untraced function's output does not depend on x
    for name, function, of_first in functions:
        is_primitive = getattr(function, "is_primitive", False)
        if is_primitive:
            cells = [
                checked(registered(function, mode), against=differentiates(of_first, mode), shown_as=yes_no)
                for mode in ("vjp", "jvp")
            ]
        else:
            # No rule table at all, and a call on a box gives a plain value back.
            cells = [
                checked(
                    hasattr(function, f"{mode}s"),
                    against=returns_a_box(of_first),
                    shown_as=lambda flag: "— (not traced)",
                )
                for mode in ("vjp", "jvp")
            ]
        shown = lambda flag: "yes" if flag else "no (unboxes its arguments)"  # noqa: E731
        rows.append(
            [
                f"`anp.{name}`",
                checked(is_primitive, against=returns_a_box(of_first), shown_as=shown),
                *cells,
            ]
        )

# What each kind of function returns when it meets a box, recorded during a real trace.
outputs = {}


def probe(x):
    outputs["anp.sin(x)"] = anp.sin(x)
    outputs["anp.argmax(x)"] = anp.argmax(x)
    outputs["anp.floor(x)"] = anp.floor(x)
    outputs["anp.shape(x)"] = anp.shape(x)
    outputs["x > 0"] = x > 0
    return anp.sum(outputs["anp.sin(x)"])


make_vjp(probe)(x)
box_rows = [[f"`{expression}`", f"`{type(value).__name__}`"] for expression, value in outputs.items()]

print(md_table(["function", "primitive?", "VJP rule (first argument)", "JVP rule (first argument)"], rows))
print()
print("Called on a box `x` inside a trace, each returns:")
print()
print(md_table(["expression", "returns"], box_rows))
