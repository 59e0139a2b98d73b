"""How the kept memory grows with depth: tracemalloc's live bytes after the forward pass of
chains of several depths, against the arrays counted on the graph's closures."""

import gc
import tracemalloc
from pathlib import Path

from ad_core import make_vjp
from bookkit import checked, given, load_snippet_module, md_table, text

measure = load_snippet_module(Path(__file__).with_name("_measure.py"))
x = measure.start_point()
depths = [4, 16, 64]
measured = []
for depth in depths:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    vjp, _ = make_vjp(measure.chain(depth))(x)
    live = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    held = measure.arrays_held(vjp)
    made = [array for array in held.values() if array is not x]
    assert all(array.nbytes == measure.ARRAY_BYTES for array in made)
    nodes = len(measure.graph_of(vjp))
    measured.append((depth, nodes, len(held), made, live))
    del vjp

rows = []
for depth, nodes, held, made, live in measured:
    rows.append([
        given(depth),
        checked(nodes, against=2 * depth + 2),  # sin and multiply per layer, the sum, the root
        checked(held, against=depth),  # one input per sin, reading the rule
        checked(len(made), against=depth - 1),  # all but x, made before
        checked(live / measure.ARRAY_BYTES, against=len(made), rtol=0.01, atol=0.1,
                shown_as=lambda v: f"{v:.2f}"),
    ])
print(md_table(
    ["layers", "nodes on the tape", "arrays the closures hold", "of them made by the trace",
     "tracemalloc: live bytes, in activations"],
    rows, align=["right"] * 5,
))
(small_depth, *_, small_live), *_, (large_depth, *_, large_live) = measured
per_layer = (large_live - small_live) / (large_depth - small_depth)
print(text(
    "\nEach layer adds one activation, {activation} bytes, to what the tape keeps: from "
    "{small} to {large} layers the live bytes grow by {per_layer:.0f} bytes a layer. The part "
    "that is not an activation (the nodes, closures and shape records) is {overhead:.1f}% of it.",
    activation=given(measure.ARRAY_BYTES),
    small=given(small_depth), large=given(large_depth),
    per_layer=checked(per_layer, against=measure.ARRAY_BYTES, rtol=0.01),
    overhead=checked(100 * (per_layer / measure.ARRAY_BYTES - 1), against=0.0, atol=1.0),
))
