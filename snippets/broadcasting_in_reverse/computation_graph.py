"""The traced graph of L(b) = sum(x + b), drawn from ad_core.recorder.trace_graph."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core.recorder import trace_graph
from bookkit import load_snippet_module, mermaid_graph

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
x, b = helpers.SCALAR_X, helpers.SCALAR_BIAS

# --8<-- [start:trace]
graph = trace_graph(lambda b: anp.sum(x + b), b)
# --8<-- [end:trace]

primitives = [node.primitive for node in graph.nodes]
assert primitives == ["root", "add", "sum"], primitives
add_node = graph.nodes[1]
# x is a constant here: only b (argument 1 of add) is a traced parent.
assert add_node.parent_argnums == (1,) and add_node.shape == x.shape
assert graph.nodes[0].shape == np.shape(b) and graph.nodes[-1].shape == ()

print(mermaid_graph(graph, title="L(b) = sum(x + b)", names={0: "b"}))
