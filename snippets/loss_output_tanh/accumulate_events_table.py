"""Recorded from ad_core: the two nodes whose cotangent arrives in two contributions."""

from pathlib import Path

from ad_core import grad
from ad_core.recorder import record, trace_graph
from bookkit import checked, events_table, load_snippet_module, text

tiny = load_snippet_module(Path(__file__).with_name("_tiny_cross_entropy.py"))
graph = trace_graph(tiny.cross_entropy, tiny.LOGITS)
names = tiny.node_names(graph.nodes)

# --8<-- [start:record]
with record() as rec:
    grad(tiny.cross_entropy)(tiny.LOGITS)
# --8<-- [end:record]

# Pair each accumulate event with the VJP call that produced its contribution.
source_of = {}
last_vjp = None
for event in rec.events:
    if event.kind == "vjp":
        last_vjp = event
    elif event.kind == "accumulate":
        source_of[event.step] = last_vjp
accumulates = [e for e in rec.events if e.kind == "accumulate"]
# The total each node held after its previous arrival, read from the earlier events.
previous_total = {}
held: dict[int, object] = {}
arrivals_so_far = {}
seen: dict[int, int] = {}
for e in accumulates:
    previous_total[e.step] = held.get(e.node)
    held[e.node] = e.value
    seen[e.node] = seen.get(e.node, 0) + 1
    arrivals_so_far[e.step] = seen[e.node]

merges = [e for e in accumulates if e.detail["count"] == 2]
assert sorted(names[e.node] for e in merges) == ["counts", "logits"]
shown = [e for e in accumulates if names[e.node] in ("counts", "logits")]
assert len(shown) == 4

print(
    events_table(
        shown,
        [
            "step",
            ("into node", lambda e: names[e.node]),
            ("from", lambda e: f"{names[source_of[e.step].node]}, arg {source_of[e.step].argnum}"),
            "count",
            "before",
            "contribution",
            ("total (value)", lambda e: e.value),
        ],
        precision=4,
        checks={
            "count": lambda e: arrivals_so_far[e.step],
            "before": lambda e: previous_total[e.step],
            "contribution": lambda e: source_of[e.step].value,       # what the VJP call returned
            "total (value)": lambda e: (source_of[e.step].value if previous_total[e.step] is None
                                        else previous_total[e.step] + source_of[e.step].value),
        },
    )
)
print()
print(text(
    "Of {n} accumulate events in this backward pass, these {k} land on the two fan-out nodes. "
    "The second arrival at `counts` is the engine's version of `dcounts += ...`; the second "
    "arrival at `logits` is the max path. Each total equals `before + contribution` (checked "
    "against the recorded VJP outputs).",
    # one accumulate event per edge of the traced graph
    n=checked(len(accumulates), against=sum(len(node.parents) for node in graph.nodes)),
    # one arrival per edge out of the two fan-out nodes
    k=checked(len(shown), against=sum(names[p] in ("counts", "logits")
                                      for node in graph.nodes for p in node.parents)),
))
