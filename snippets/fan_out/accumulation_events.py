"""Three contributions arriving at the same node, step by step, from the recorder."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.recorder import record, trace_graph
from bookkit import central_differences, checked, given, md_table, mermaid_graph, text


# --8<-- [start:function]
def f(x):
    return x * anp.sin(x) + x  # x is used three times


x0 = 1.2
with record() as recording:
    gradient = grad(f)(x0)
# --8<-- [end:function]

graph = trace_graph(f, x0)
print(mermaid_graph(graph, title="f(x) = x * sin(x) + x"))
print()

forward = recording.of_kind("forward")
root_id = forward[0].detail["parents"][0]
vjps = recording.of_kind("vjp")
accumulates = recording.of_kind("accumulate")

# Each edge's contribution from its closed form, independent of the engine.
expected_parts = {
    ("multiply", 0): np.sin(x0),  # d(x * s)/dx with s = sin x held fixed
    ("sin", 0): x0 * np.cos(x0),  # through sin, times the other factor x
    ("add", 1): 1.0,  # the final + x
}
rows = []
running = None
for vjp_event, accumulate_event in zip(vjps, accumulates, strict=True):
    if accumulate_event.node != root_id:
        continue
    part = expected_parts[(vjp_event.primitive, vjp_event.argnum)]
    before = accumulate_event.detail["before"]
    rows.append(
        [
            checked(accumulate_event.detail["count"], against=len(rows) + 1),
            f"`{vjp_event.primitive}`, `argnum={vjp_event.argnum}`",
            checked(accumulate_event.detail["contribution"], against=part, rtol=1e-15),
            checked(
                before,
                against=running,  # None before the first arrival
                rtol=1e-15,
                shown_as=(lambda _: "— (first arrival)") if running is None else None,
            ),
            checked(accumulate_event.value, against=part if running is None else running + part, rtol=1e-15),
        ]
    )
    running = part if running is None else running + part
assert {(e.primitive, e.argnum) for e, a in zip(vjps, accumulates, strict=True) if a.node == root_id} == set(
    expected_parts
)
print(
    md_table(
        ["arrival", "sent by", "contribution", "total before", "total after"],
        rows,
        align=["right", "left", "right", "right", "right"],
    )
)
print()
edges_out_of_root = sum(node.parents.count(graph.nodes[0].id) for node in graph.nodes)
print(
    text(
        "The root has {edges} outgoing edges in the traced graph, and the recorder saw it receive "
        "{arrivals} contributions. Their sum, {total}, is $\\sin x + x\\cos x + 1$ at $x = {x}$ "
        "(central differences: {fd}).",
        edges=checked(edges_out_of_root, against=len(expected_parts)),
        arrivals=checked(len(rows), against=edges_out_of_root),
        total=checked(gradient, against=np.sin(x0) + x0 * np.cos(x0) + 1.0, rtol=1e-14),
        x=given(x0),
        fd=checked(central_differences(f, x0), against=gradient, rtol=1e-8, shown_as=lambda v: f"`{v:.6f}`"),
    )
)
