"""The call timeline of grad(lambda b: sum(x + b))(2.0), every event as the engine emitted it."""

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from bookkit import events_table, fmt_shape, load_snippet_module

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")
x, b = helpers.SCALAR_X, helpers.SCALAR_BIAS

with record() as recording:
    grad(lambda b: anp.sum(x + b))(b)

kinds = [event.kind for event in recording.events]
# Forward before backward; the unbroadcast stages sit between the visit of add and its vjp.
assert kinds.index("visit") > max(i for i, k in enumerate(kinds) if k == "forward")
first_stage = kinds.index("unbroadcast")
add_visit = next(e.step for e in recording.events if e.kind == "visit" and e.primitive == "add")
add_vjp = next(e.step for e in recording.events if e.kind == "vjp" and e.primitive == "add")
assert add_visit < first_stage < add_vjp

def argnum_or_stage(event):
    return event.argnum if event.argnum is not None else event.detail.get("stage")


print(events_table(
    recording.events,
    ["step", "kind", "node", "primitive", ("argnum / stage", argnum_or_stage), "value", "shape"],
))
print()
print(
    f"{len(recording.events)} events. The forward pass records the two primitives; the "
    f"backward pass visits `sum`, then `add` (event {add_visit}), whose rule for argument 1 "
    f"runs `unbroadcast` (events {first_stage} to {add_vjp - 1}) before the contribution is "
    f"returned (event {add_vjp}) and added into the root."
)


def sequence_diagram(events) -> str:
    """A Mermaid sequence diagram of the backward pass, one message per recorded event."""
    lines = ["```mermaid", "sequenceDiagram",
             "    participant T as tracing (forward)",
             "    participant E as backward_pass",
             "    participant R as VJP rule",
             "    participant U as unbroadcast"]
    for event in events:
        shape = fmt_shape(event.shape)
        if event.kind == "forward":
            lines.append(f"    T->>T: {event.primitive} creates node {event.node}, shape {shape}")
        elif event.kind == "visit" and event.primitive == "root":
            lines.append(f"    E->>E: visit root node {event.node}: its cotangent is final")
        elif event.kind == "visit":
            lines.append(f"    E->>R: visit node {event.node}, call the {event.primitive} "
                         f"rule with g of shape {shape}")
        elif event.kind == "unbroadcast" and event.detail["stage"] == "enter":
            lines.append(f"    R->>U: unbroadcast x of shape {shape}")
        elif event.kind == "unbroadcast" and event.detail["stage"] == "return":
            lines.append(f"    U->>R: return shape {shape}")
        elif event.kind == "unbroadcast":
            axis = event.detail.get("axis")
            where = "" if axis is None else f" axis {axis}"
            lines.append(f"    U->>U: {event.detail['stage']}{where}, now shape {shape}")
        elif event.kind == "vjp":
            lines.append(f"    R->>E: contribution for argument {event.argnum}, shape {shape}")
        elif event.kind == "accumulate":
            lines.append(f"    E->>E: store into node {event.node} "
                         f"(contribution {event.detail['count']})")
    lines.append("```")
    return "\n".join(lines) + "\n"


diagram = sequence_diagram(recording.events)
assert diagram.count("\n") >= len(recording.events)  # one message per event, none dropped
print()
print("The same events as a sequence diagram, generated from the recording:")
print()
print(diagram)
