"""The traced graphs of the naive formula and of the primitive: three nodes against one."""

import contextlib
import dis
import io
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core.recorder import trace_graph
from bookkit import checked, load_snippet_module, mermaid_graphs, text

with contextlib.redirect_stdout(io.StringIO()):  # the primitive's own tables belong to its block
    logsumexp = load_snippet_module(Path(__file__).with_name("logsumexp_primitive.py")).logsumexp


def naive_logsumexp(z):
    return anp.log(anp.sum(anp.exp(z), axis=-1))


z = np.array([1.0, 2.0, 0.0])
naive_graph = trace_graph(naive_logsumexp, z)
primitive_graph = trace_graph(logsumexp, z)
naive_primitives = [node.primitive for node in naive_graph.nodes if not node.is_root]
assert naive_primitives == ["exp", "sum", "log"]
assert [node.primitive for node in primitive_graph.nodes if not node.is_root] == ["logsumexp"]
# One diagram, so that both graphs are drawn at the same scale.
print("The naive formula (left) and the primitive (right), as the engine traces them:\n")
print(mermaid_graphs([("naive formula, three primitives", naive_graph), ("one primitive", primitive_graph)]))
print(text(
    "\nThe naive graph has {count} nodes, one per `anp` call in the formula, whose rules run "
    "one after the other in the backward pass, each on values that may already have overflowed. The "
    "primitive is one node with one rule, which sees the whole computation and can keep it "
    "stable.",
    # counted in the function's bytecode: one attribute lookup (anp.exp, anp.sum, anp.log) per call
    count=checked(len(naive_primitives), against=sum(
        1 for op in dis.get_instructions(naive_logsumexp) if op.opname in ("LOAD_ATTR", "LOAD_METHOD"))),
))
