"""The call timeline: the order in which ad_core's backward pass visits the nodes."""

from ad_core import grad
from ad_core.inspect import record, trace_graph
from bookkit import events_table, load_snippet_module

tiny = load_snippet_module("snippets/loss_output_tanh/_tiny_cross_entropy.py")
names = tiny.node_names(trace_graph(tiny.cross_entropy, tiny.LOGITS).nodes)

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
    ["step", ("node visited", lambda e: names[e.node]), "shape",
     ("contributions received", lambda e: arrived_before_visit[e.step] or "— (output)")],
))
print()
print(
    f"The backward pass visits the {len(visits)} nodes in reverse topological order: "
    + " → ".join(f"`{n}`" for n in order)
    + ". `counts` waits until both of its children, `probs` and `counts_sum`, have contributed."
)
