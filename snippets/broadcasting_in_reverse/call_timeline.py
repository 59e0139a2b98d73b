"""The call timeline of grad(lambda b: sum(x + b))(2.0), every event as the engine emitted it."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record, trace_graph
from bookkit import Rendered, checked, events_table, given, load_snippet_module, text
from bookkit.formatting import _fmt_shape as fmt_shape

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
x, b = helpers.SCALAR_X, helpers.SCALAR_BIAS


def loss(b):
    return anp.sum(x + b)


with record() as recording:
    grad(loss)(b)
events = recording.events


def key(event):
    return (event.kind, event.detail["stage"] if event.kind == "unbroadcast" else event.primitive)


# The order the chapter describes, and what each event holds, from closed forms: forward both
# primitives; visit sum (the seed 1), whose rule sends ones to add; visit add, whose rule for b
# runs unbroadcast's stages; the result, 3 = the number of copies, goes into the root.
order = [
    ("forward", "add"), ("forward", "sum"), ("visit", "sum"), ("vjp", "sum"), ("accumulate", "add"),
    ("visit", "add"), ("unbroadcast", "enter"), ("unbroadcast", "sum_leading"),
    ("unbroadcast", "return"), ("vjp", "add"), ("accumulate", "root"), ("visit", "root"),
]
ones, copies = np.ones(x.shape), float(x.size)
holds = {
    ("forward", "add"): x + np.full(x.shape, b), ("forward", "sum"): float(sum(x) + b * x.size),
    ("visit", "sum"): 1.0, ("vjp", "sum"): ones, ("accumulate", "add"): ones, ("visit", "add"): ones,
    ("unbroadcast", "enter"): ones, ("unbroadcast", "sum_leading"): copies,
    ("unbroadcast", "return"): copies, ("vjp", "add"): copies, ("accumulate", "root"): copies,
    ("visit", "root"): copies,
}
assert [key(event) for event in events] == order
graph = trace_graph(loss, b)
node_of = {node.primitive: node.id for node in graph.nodes}  # root, add, sum


class Shape(tuple):
    """A new tuple object: `()` is one shared object, which checked() refuses to compare with itself."""


def argnum_or_stage(event):
    return event.argnum if event.argnum is not None else event.detail.get("stage")


print(events_table(
    events,
    ["step", "kind", "node", "primitive", ("argnum / stage", argnum_or_stage), "value", "shape"],
    checks={
        "value": lambda e: holds[key(e)],
        "shape": lambda e: Shape(np.shape(holds[key(e)])),
        # sum's rule is for its only argument; add's for b, its second (x is a constant).
        "argnum / stage": lambda e: {("vjp", "sum"): 0, ("vjp", "add"): 1}.get(key(e), e.detail.get("stage")),
    },
))
add_visit, first_stage = order.index(("visit", "add")), order.index(("unbroadcast", "enter"))
add_vjp = order.index(("vjp", "add"))
print()
print(text(
    "{count} events. The forward pass records the two primitives; the backward pass visits "
    "`sum`, then `add` (event {visit}), whose rule for `b` runs `unbroadcast` (events {first} to "
    "{last}) before the contribution is returned (event {vjp}) and added into the root.",
    # One forward event per primitive node, one visit per node, one vjp and one accumulate per
    # edge, and the stages of the reduction.
    count=checked(len(events), against=(len(graph.nodes) - 1) + len(graph.nodes)
                  + 2 * sum(len(node.parents) for node in graph.nodes)
                  + len(helpers.reduction_model(ones, b))),
    visit=checked(next(e.step for e in events if key(e) == ("visit", "add")), against=add_visit),
    first=checked(next(e.step for e in events if e.kind == "unbroadcast"), against=first_stage),
    last=checked(next(e.step for e in events if key(e) == ("unbroadcast", "return")), against=add_vjp - 1),
    vjp=checked(next(e.step for e in events if key(e) == ("vjp", "add")), against=add_vjp),
))


def shape_of(event):
    return checked(list(event.shape), against=list(np.shape(holds[key(event)])),
                   shown_as=lambda v: fmt_shape(tuple(v)))


def node_id(event):
    return checked(event.node, against=node_of[event.primitive])


def sequence_diagram(events) -> str:
    """A Mermaid sequence diagram of the backward pass, one message per recorded event."""
    lines = [("```mermaid\nsequenceDiagram\n    participant T as tracing (forward)\n"
                      "    participant E as backward_pass\n    participant R as VJP rule\n"
                      "    participant U as unbroadcast")]
    for event in events:
        if event.kind == "forward":
            lines.append(text("    T->>T: {p} creates node {n}, shape {s}", p=event.primitive,
                              n=node_id(event), s=shape_of(event)))
        elif event.kind == "visit" and event.primitive == "root":
            lines.append(text("    E->>E: visit root node {n}: its cotangent is final", n=node_id(event)))
        elif event.kind == "visit":
            lines.append(text("    E->>R: visit node {n}, call the {p} rule with g of shape {s}",
                              n=node_id(event), p=event.primitive, s=shape_of(event)))
        elif event.kind == "unbroadcast" and event.detail["stage"] == "enter":
            lines.append(text("    R->>U: unbroadcast x of shape {s}", s=shape_of(event)))
        elif event.kind == "unbroadcast" and event.detail["stage"] == "return":
            lines.append(text("    U->>R: return shape {s}", s=shape_of(event)))
        elif event.kind == "unbroadcast":
            lines.append(text("    U->>U: {stage} axis {axis}, now shape {s}", stage=event.detail["stage"],
                              axis=checked(event.detail["axis"], against=0), s=shape_of(event)))
        elif event.kind == "vjp":
            lines.append(text("    R->>E: contribution for argument {a}, shape {s}",
                              a=given(event.argnum), s=shape_of(event)))
        elif event.kind == "accumulate":
            lines.append(text("    E->>E: store into node {n} (contribution {c})", n=node_id(event),
                              c=checked(event.detail["count"], against=1)))  # each node has one child
    lines.append("```")
    return Rendered("\n").join(lines) + "\n"


diagram = sequence_diagram(events)
assert diagram.count("->>") == len(events)  # one message per event, none dropped
print()
print("The same events as a sequence diagram, generated from the recording:")
print()
print(diagram)
