"""Self-test for "Memory: what the tape keeps": every answer is computed and checked here before
it is shown."""

import gc
import math
import tracemalloc
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import checkpoint, jacobian, make_vjp
from bookkit import checked, collapsible, given, load_snippet_module, text

measure = load_snippet_module(Path(__file__).with_name("_measure.py"))
x = measure.start_point()

# 1. A rule that reads its output: tanh keeps what it makes, so the last output stays too.
depth = 16


def tanh_chain(x):
    for _ in range(depth):
        x = anp.tanh(x)
    return anp.sum(x)


gc.collect()
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
vjp, _ = make_vjp(tanh_chain)(x)
live = (tracemalloc.get_traced_memory()[0] - before) / measure.ARRAY_BYTES
tracemalloc.stop()
held = measure.arrays_held(vjp)
assert all(array is not x for array in held.values())  # tanh never reads its input
del vjp
print(collapsible(
    "A chain of `anp.tanh` layers, with no `multiply`: how much new memory does its tape keep, "
    "and why is it one activation more than the `sin` chain's?",
    text(
        "`tanh`'s rule is `g * (1 - ans**2)`: it reads its output, not its input. So each node "
        "keeps the array it made, the last layer's output included, and none keeps $x$. For "
        "{depth} layers the closures hold {held} arrays, all made by the trace, and tracemalloc "
        "measures {live} whole activations alive; the `sin` chain of the same depth keeps one "
        "fewer made array, because its first closure holds $x$, which existed before.",
        depth=given(depth),
        held=checked(len(held), against=depth),
        live=measure.activations(live, depth),
    ),
))

# 2. The best segment length for 100 layers, from the peak formula.
layers = 100


def peak(k):
    """N/k kept segment inputs (less x) + k - 1 recomputed inputs + a cotangent + three arrays."""
    segments = layers // k
    return (segments - 1) + (k - 1) + (1 if segments > 1 else 0) + 3


divisors = [k for k in range(1, layers + 1) if layers % k == 0]
best = min(divisors, key=peak)
print(collapsible(
    text("For a chain of {layers} layers cut into equal segments, which segment length gives the "
         "smallest peak, and what is it in activations? (Use the count this page measured.)",
         layers=given(layers)),
    text(
        "The peak is about $N/k + k$, smallest where $N/k = k$, at $k = \\sqrt{{N}}$. Among the "
        "divisors of {layers}, $k$ = {best} gives {best_peak} activations against {plain} for "
        "the plain tape, $N + 2$. One segment of all the layers ($k = N$) peaks as high as the "
        "plain tape, and segments of one layer each one higher still: {ones}. "
        "Memory grows like $\\sqrt{{N}}$ instead of $N$, for one extra forward pass.",
        layers=given(layers),
        best=checked(best, against=math.isqrt(layers)),
        best_peak=checked(peak(best), against=2 * math.isqrt(layers) + 2),
        plain=checked(peak(layers), against=layers + 2),
        ones=checked(peak(1), against=layers + 3),
    ),
))

# 3. Every backward pass recomputes: a Jacobian of m rows reruns each block m times.
width, rows_of_output = 5, 5
calls = []


def block(x):
    calls.append(1)
    return anp.sin(x) * 0.9


small = x[:width]
jac = jacobian(lambda x: checkpoint(block)(x))(small)
assert jac.shape == (rows_of_output, width)
np.testing.assert_allclose(jac, np.diag(0.9 * np.cos(small)), rtol=1e-14)  # closed form
print(collapsible(
    text("`jacobian` of a checkpointed block with an output of shape {shape}: how many times does "
         "the block run?", shape=given(jac.shape[:1])),
    text(
        "{runs}: once in the forward pass, then once in each of the {passes} backward passes, "
        "one per output entry. The saving holds in every backward pass, and so does the price: "
        "the recomputation is paid once per pass, not once per trace.",
        runs=checked(len(calls), against=1 + rows_of_output),
        passes=given(rows_of_output),
    ),
))
