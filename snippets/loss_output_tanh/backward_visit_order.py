"""The call timeline: the order in which ad_core's backward pass visits the nodes."""

from pathlib import Path

import numpy as np

from ad_core import grad
from ad_core.recorder import record, trace_graph
from bookkit import checked, events_table, fmt_shape, load_snippet_module, text

tiny = load_snippet_module(Path(__file__).with_name("_tiny_cross_entropy.py"))
graph = trace_graph(tiny.cross_entropy, tiny.LOGITS)
names = tiny.node_names(graph.nodes)
children: dict[int, int] = {}
for node in graph.nodes:
    for parent in node.parents:
        children[parent] = children.get(parent, 0) + 1

with record() as rec:
    grad(tiny.cross_entropy)(tiny.LOGITS)

visits = [e for e in rec.events if e.kind == "visit"]
arrivals: dict[int, int] = {}
arrived_before_visit = {}
for event in rec.events:
    if event.kind == "accumulate":
        arrivals[event.node] = arrivals.get(event.node, 0) + 1
    elif event.kind == "visit":
        arrived_before_visit[event.step] = arrivals.get(event.node, 0)
order = [names[e.node] for e in visits]
# A node is visited only after every child has sent its contribution: counts after both probs
# and counts_sum, logits (the root) last.
assert order.index("counts") > max(order.index("probs"), order.index("counts_sum"))
assert order[-1] == "logits" and order[0] == "loss"
print(events_table(
    visits,
    ["step", ("node visited", lambda e: names[e.node]), ("shape", lambda e: fmt_shape(e.shape)),
     ("contributions received", lambda e: arrived_before_visit[e.step] or "— (output)")],
    checks={
        # the node's shape, as traced, is the shape of the cotangent the visit holds
        # (compared as text: `checked` takes the empty shape `()`, one shared object, for a
        # comparison with itself)
        "shape": lambda e: fmt_shape(np.shape(e.value)),
        # every child in the traced graph has sent one contribution before the visit
        "contributions received": lambda e: children.get(e.node, 0) or "— (output)",
    },
))
print()
print(text(
    "The backward pass visits the {n} nodes in reverse topological order: {order}. `counts` "
    "waits until both of its children, `probs` and `counts_sum`, have contributed.",
    n=checked(len(visits), against=len(graph.nodes)),
    order=" → ".join(f"`{n}`" for n in order),
))
