"""What the tape of a three-layer chain keeps: per node, the arrays its VJP closure holds."""

from pathlib import Path

import numpy as np

import ad_core.numpy.vjps as rules
from ad_core import make_vjp
from ad_core.tracer import getval
from bookkit import checked, given, load_snippet_module, md_table, text
from bookkit.source import rule_registrations, rules_listing

measure = load_snippet_module(Path(__file__).with_name("_measure.py"))

print(rules_listing(rule_registrations(rules, ["anp.sin", "anp.multiply", "anp.sum"])))
print()

depth = 3
x = np.random.default_rng(1).standard_normal(4)
layer_inputs = []  # the raw value entering each layer, kept here only to name what the tape holds
last_output = []  # the last layer's output, kept here only to show that the tape does not hold it


def loss(x):
    for _ in range(depth):
        layer_inputs.append(getval(x))
        x = measure.layer(x)
    last_output.append(getval(x))
    return measure.anp.sum(x)


vjp, _ = make_vjp(loss)(x)
names = {id(value): f"$x_{index}$" for index, value in enumerate(layer_inputs)}
# What reading the three rules predicts: sin's closure reads its input, the others read no array.
predicted = {"sin": 1, "multiply": 0, "sum": 0, "root": 0}
rows = []
for node in measure.graph_of(vjp):
    held = {}
    for closure in node.vjps:
        held.update(measure.arrays_in_closure(closure))
    primitive = "root" if node.fun is None else node.fun.__name__
    which = ", ".join(names.get(key, "an array the layers did not make") for key in held) or "nothing"
    if primitive == "sin":  # the array it holds is one of the layer inputs, by identity
        assert all(key in names for key in held)
    rows.append([f"`{primitive}`", checked(len(held), against=predicted[primitive]), which])
print(md_table(["node (output first)", "arrays its VJP closures hold", "which"], rows,
               align=["left", "right", "left"]))
held_by_graph = measure.arrays_held(vjp)
multiply_outputs_held = [key for key in held_by_graph if key != id(layer_inputs[0])]
assert id(last_output[0]) not in held_by_graph
print(text(
    "\nThe graph of {depth} layers holds {count} arrays: the input of every `sin`. No closure "
    "holds an output of `sin`, or the last layer's output, so those were freed as soon as the "
    "next primitive had read them. The other {kept} outputs of `multiply` are kept only because "
    "each is the next `sin`'s input.",
    depth=given(depth),
    count=checked(len(held_by_graph), against=depth),
    kept=checked(len(multiply_outputs_held), against=depth - 1),
))
assert set(held_by_graph) == {id(value) for value in layer_inputs}
