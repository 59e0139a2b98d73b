"""Recorded from ad_core: the two nodes whose cotangent arrives in two contributions."""

from ad_core import grad
from ad_core.inspect import record, trace_graph
from bookkit import events_table, load_snippet_module

tiny = load_snippet_module("snippets/loss_output_tanh/_tiny_cross_entropy.py")
names = tiny.node_names(trace_graph(tiny.cross_entropy, tiny.LOGITS).nodes)

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

merges = [e for e in rec.events if e.kind == "accumulate" and e.detail["count"] == 2]
assert sorted(names[e.node] for e in merges) == ["counts", "logits"]
shown = [
    e for e in rec.events
    if e.kind == "accumulate" and names[e.node] in ("counts", "logits")
]
assert len(shown) == 4
for e in merges:
    assert (e.value == e.detail["before"] + e.detail["contribution"]).all()

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
    )
)
print()
print(
    f"Of {len([e for e in rec.events if e.kind == 'accumulate'])} accumulate events in this "
    "backward pass, these four land on the two fan-out nodes. The second arrival at `counts` "
    "is the engine's version of `dcounts += ...`; the second arrival at `logits` is the max "
    "path. Each total equals `before + contribution` (asserted on the recorded values)."
)
