"""When the tape is freed: a weak reference to a value the tape holds, and the live bytes, after
each step of a make_vjp's life; then the same under grad."""

import gc
import tracemalloc
import weakref
from pathlib import Path

from ad_core import grad, make_vjp
from ad_core.tracer import getval
from bookkit import checked, given, load_snippet_module, md_table, text, yes_no

measure = load_snippet_module(Path(__file__).with_name("_measure.py"))
depth = 8
x = measure.start_point()
watched = []


# --8<-- [start:watch]
def loss(x):
    for index in range(depth):
        if index == 1:
            watched.append(weakref.ref(getval(x)))  # x_1: the second sin's input, on the tape
        x = measure.layer(x)
    return measure.anp.sum(x)
# --8<-- [end:watch]


def live_arrays():
    return (tracemalloc.get_traced_memory()[0] - before) / measure.ARRAY_BYTES


steps = []


def row(step, alive_expected, arrays_expected):
    """`arrays_expected`: the arrays the graph's closures hold, counted from the graph (or none
    once it is gone), less the input x that was allocated before the trace. Checked after
    tracemalloc stops, so that the checking code's own imports are not measured."""
    steps.append((step, watched[-1]() is not None, alive_expected, live_arrays(), arrays_expected))


gc.disable()  # what follows is reference counting alone: the graph holds no cycle
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
vjp, _ = make_vjp(loss)(x)
held = len(measure.arrays_held(vjp)) - 1  # x itself was allocated before
row("`vjp, value = make_vjp(loss)(x)`", True, held)
gradient = vjp(1.0)
row("`gradient = vjp(1.0)`", True, held + 1)  # the gradient is one more array
del gradient
row("`del gradient`", True, held)
del vjp
row("`del vjp`", False, 0)
gradient = grad(loss)(x)
row("`gradient = grad(loss)(x)`", False, 1)
tracemalloc.stop()
gc.enable()
rows = [
    [step, checked(alive, against=alive_expected, shown_as=yes_no),
     measure.activations(live, expected)]
    for step, alive, alive_expected, live, expected in steps
]
print(md_table(["step", "$x_1$ alive", "live bytes, in whole activations"], rows,
               align=["left", "left", "right"]))
print(text(
    "\nOne activation is {width} float64 entries; the chain has {depth} layers, so the tape "
    "holds {held} activations it made (the inputs of the later `sin` calls) until the last "
    "reference to `vjp` goes.",
    width=given(measure.WIDTH), depth=given(depth), held=checked(held, against=depth - 1),
))
