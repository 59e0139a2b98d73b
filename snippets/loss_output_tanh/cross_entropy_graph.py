"""The graph ad_core traces for the atomic cross-entropy: two nodes feed forward twice."""

from pathlib import Path

from ad_core.recorder import trace_graph
from bookkit import checked, given, load_snippet_module, mermaid_graph, text

tiny = load_snippet_module(Path(__file__).with_name("_tiny_cross_entropy.py"))

graph = trace_graph(tiny.cross_entropy, tiny.LOGITS)
names = tiny.node_names(graph.nodes)
children: dict[int, int] = {}
for node in graph.nodes:
    for parent in node.parents:
        children[parent] = children.get(parent, 0) + 1
fan_out = sorted(names[i] for i, count in children.items() if count > 1)
assert fan_out == ["counts", "logits"]
print(mermaid_graph(graph, names=names, direction="TB", compact=True))
print()
print(text(
    "The engine traced {n} nodes for a batch of {b}. Two of them have two children: {names}. "
    "Those are the two places where the backward pass receives two contributions and must add "
    "them.",
    # the root and one node per line of the atomic forward pass
    n=checked(len(graph.nodes), against=len(tiny.NODE_NAMES)),
    b=given(tiny.LOGITS.shape[0]),
    names=" and ".join(f"`{n}`" for n in fan_out),
))
