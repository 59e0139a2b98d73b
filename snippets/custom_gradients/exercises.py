"""Self-test for "Gradients that are not the derivative": every worked answer is computed here."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, stop_gradient
from bookkit import central_differences, checked, collapsible, given, load_snippet_module, text

rules = load_snippet_module(Path(__file__).with_name("_rules.py"))


def title(number: int, words: str, **fields):
    return text("Exercise {k}. " + words, k=given(number), **fields)


# 1. x * stop_gradient(x) at x = 3: grad sees only the unstopped factor.
x = 3.0
print(collapsible(
    title(1, "What does `grad(lambda x: x * stop_gradient(x))` return at {x}, and what is the "
             "derivative of the function it computes?", x=given(x)),
    text(
        "`grad` returns {engine}: the stopped factor is a constant $c$, and $d(xc)/dx = c$, "
        "the value of `x`. The function computes $x^2$, whose derivative is {fd} (central "
        "differences). `stop_gradient` changes the gradient, never the value.",
        engine=checked(float(grad(lambda v: v * stop_gradient(v))(x)), against=x),
        fd=checked(central_differences(lambda v: v * v, x), against=2 * x, rtol=1e-8),
    ),
))
print()

# 2. A term zero in value, not in gradient: f(x) + (g(x) - stop_gradient(g(x))) has the value of f
# and the gradient of f + g.
x = 0.7
trick = lambda v: anp.sin(v) + (anp.cos(v) - stop_gradient(anp.cos(v)))  # noqa: E731
print(collapsible(
    title(2, "Write a function whose value is $\\sin x$ but whose `grad` is the derivative of "
             "$\\sin x + \\cos x$, using `stop_gradient` once. Check it at {x}.", x=given(x)),
    text(
        "Add a term that is zero in value but not in gradient: "
        "`sin(x) + (cos(x) - stop_gradient(cos(x)))`. Its value is {value}, $\\sin x$; its "
        "`grad` is {gradient}, $\\cos x - \\sin x$. The straight-through estimator is the same "
        "trick: `x + stop_gradient(round(x) - x)` has the value of `round(x)` and gradient one, "
        "as the `custom_vjp` above: {ste}.",
        value=checked(float(trick(x)), against=float(np.sin(x)), rtol=1e-15),
        gradient=checked(float(grad(trick)(x)), against=float(np.cos(x) - np.sin(x)), rtol=1e-15),
        ste=checked(float(grad(lambda v: v + stop_gradient(anp.round(v) - v))(x)),
                    against=float(grad(rules.round_straight_through)(x))),
    ),
))
print()

# 3. Clip inside vs after, for one scalar chain y = 10 * clip_cotangent(x, 1), loss = y.
print(collapsible(
    title(3, "For `loss(x) = 10 * clip_cotangent(2 * x, 1.0)`, what does `grad` return, and "
             "what does clipping the final gradient to $[-1, 1]$ give?"),
    text(
        "The cotangent reaching the clip point is {upstream}, clipped to {clipped}, then "
        "multiplied by the {factor} of `2 * x`: `grad` returns {inside}. The true gradient is "
        "{true}, and clipping it after the backward pass gives {after}.",
        upstream=given(10.0), clipped=checked(float(np.clip(10.0, -1, 1)), against=1.0),
        factor=given(2.0),
        inside=checked(float(grad(lambda v: 10.0 * rules.clip_cotangent(2.0 * v, 1.0))(0.3)),
                       against=2.0 * 1.0),
        true=checked(central_differences(lambda v: 10.0 * 2.0 * v, 0.3), against=20.0, rtol=1e-8),
        after=checked(float(np.clip(20.0, -1, 1)), against=1.0),
    ),
))
