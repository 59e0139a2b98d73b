"""Derivatives of derivatives: grad applied to grad, checked against closed forms."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record
from bookkit import Derivation, checked, given, load_snippet_module, md_table, text

counted_work = load_snippet_module(Path(__file__).with_name("_counting.py")).counted_work

# --8<-- [start:nested]
first = grad(anp.tanh)
second = grad(first)  # differentiates the backward pass of `first`
third = grad(second)
# --8<-- [end:nested]


def closed_forms(x: float) -> list[float]:
    t = np.tanh(x)
    return [t, 1 - t**2, -2 * t * (1 - t**2), -2 * (1 - t**2) * (1 - 3 * t**2)]


rows = []
for x in [-1.0, 0.0, 0.5, 2.0]:
    engine = [anp.tanh(x), first(x), second(x), third(x)]
    # The closed forms round differently from the differentiated rules.
    rows.append([given(x, shown_as=lambda x: f"{x:g}"),
                 *(checked(value, against=exact, rtol=1e-12, atol=1e-15)
                   for value, exact in zip(engine, closed_forms(x), strict=True))])
print(md_table(["$x$", r"$\tanh x$", "`first(x)`", "`second(x)`", "`third(x)`"], rows))


def inputs(rng: np.random.Generator) -> dict:
    return {"x": rng.uniform(-2.0, 2.0)}


second_derivative = Derivation(inputs)
second_derivative.step(r"\texttt{second}(x) &= \frac{d}{dx}\left(1 - \tanh^2 x\right)",
                       lambda v: second(v["x"]))
second_derivative.step(r"&= -2 \tanh x \cdot \frac{d}{dx}\tanh x",
                       lambda v: -2 * np.tanh(v["x"]) * first(v["x"]))
second_derivative.step(r"&= -2 \tanh x \,(1 - \tanh^2 x)",
                       lambda v: -2 * np.tanh(v["x"]) * (1 - np.tanh(v["x"]) ** 2))
print("\nThe second derivative, each line evaluated at random $x$ and compared:\n")
print(second_derivative.render(rtol=1e-12))
point = 0.5

counts = []
for order, function in enumerate([first, second, third], start=1):
    with record() as recording, counted_work() as work:
        function(point)
    counts.append([
        given(order),
        # The recorder's events, against the node constructors and closures counted from outside.
        checked(len(recording.of_kind("forward")), against=work["nodes"]),
        checked(len(recording.of_kind("vjp")), against=work["vjp_calls"]),
        # One backward pass per level of nesting.
        checked(sum(1 for e in recording.of_kind("visit") if e.primitive == "root"), against=order),
    ])
traced = [row[1].value for row in counts]
assert traced[0] < traced[1] < traced[2]
print(text("\nWhat the engine did for each order, at $x$ = {x:g} (all traces counted):\n", x=given(point)))
print(md_table(["order", "primitives traced (`forward` events)", "VJP closure calls",
                "backward passes"], counts))
