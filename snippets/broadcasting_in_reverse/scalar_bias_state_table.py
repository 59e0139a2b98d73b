"""State snapshot, scalar bias: the traced graph, then what the engine holds at each step of
unbroadcasting (3,) -> (), from the forward event where the rule captures metadata(b) to the
moment backward_pass stores b's gradient."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record, trace_graph
from bookkit import central_differences, load_snippet_module, mermaid_graph, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

x, b = helpers.SCALAR_X, helpers.SCALAR_BIAS

graph = trace_graph(lambda b: anp.sum(x + b), b)
assert [node.primitive for node in graph.nodes] == ["root", "add", "sum"]
# x is a constant here: only b (argument 1 of add) is a traced parent.
assert graph.nodes[1].parent_argnums == (1,) and graph.nodes[1].shape == x.shape
print(mermaid_graph(graph, title="L(b) = sum(x + b)", names={0: "b"}))
print()

# --8<-- [start:record]
with record() as recording:
    grad_b = grad(lambda b: anp.sum(x + b))(b)
# --8<-- [end:record]

stages = helpers.unbroadcast_events(recording.events)
# (3,) -> (): exactly one leading sum, no size-1 target axis, nothing complex.
assert [event.detail["stage"] for event in stages] == ["enter", "sum_leading", "return"]
print(helpers.backward_snapshot_table(
    recording.events, "add", "b", b,
    forward_value=x + np.full(x.shape, b),
    cotangent=np.ones(x.shape),          # the seed that sum's rule sends back
    entering=np.ones(x.shape),           # add's local VJP for b is the identity
    gradient=central_differences(lambda b: np.sum(x + b), b),
))
print()
print(text(
    "The target shape {shape} is an empty tuple, so the `for` loop over `target_shape` has "
    "nothing to visit: one leading sum did all the work.",
    shape=helpers.shape_cell(stages[-1].shape, np.shape(b)),
))
