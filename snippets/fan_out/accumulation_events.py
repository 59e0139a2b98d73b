"""Three contributions arriving at the same node, step by step, from the recorder."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.inspect import record, trace_graph
from bookkit import fmt_array, md_table, mermaid_graph


# --8<-- [start:function]
def f(x):
    return x * anp.sin(x) + x  # x is used three times


x0 = 1.2
with record() as recording:
    gradient = grad(f)(x0)
# --8<-- [end:function]

print(mermaid_graph(trace_graph(f, x0), title="f(x) = x * sin(x) + x"))
print()

forward = recording.of_kind("forward")
primitive_of = {event.node: event.primitive for event in forward}
parents_of = {event.node: event.detail["parents"] for event in forward}
root_id = forward[0].detail["parents"][0]
vjps = recording.of_kind("vjp")
accumulates = recording.of_kind("accumulate")

rows = []
for vjp_event, accumulate_event in zip(vjps, accumulates, strict=True):
    if accumulate_event.node != root_id:
        continue
    before = accumulate_event.detail["before"]
    rows.append(
        [
            str(accumulate_event.detail["count"]),
            f"`{vjp_event.primitive}`, argument {vjp_event.argnum}",
            fmt_array(accumulate_event.detail["contribution"]),
            "— (first arrival)" if before is None else fmt_array(before),
            fmt_array(accumulate_event.value),
        ]
    )
print(
    md_table(
        ["arrival", "sent by", "contribution", "total before", "total after"],
        rows,
        align=["right", "left", "right", "right", "right"],
    )
)

expected_parts = {
    ("multiply", 0): np.sin(x0),  # d(x * s)/dx with s = sin x held fixed
    ("sin", 0): x0 * np.cos(x0),  # through sin, times the other factor x
    ("add", 1): 1.0,  # the final + x
}
for vjp_event, accumulate_event in zip(vjps, accumulates, strict=True):
    if accumulate_event.node == root_id:
        key = (vjp_event.primitive, vjp_event.argnum)
        assert np.isclose(accumulate_event.detail["contribution"], expected_parts[key])
assert len(rows) == 3 == sum(parents.count(root_id) for parents in parents_of.values())
assert np.isclose(gradient, np.sin(x0) + x0 * np.cos(x0) + 1.0, rtol=1e-14)
print()
print(
    f"The root has {len(rows)} outgoing edges, so it receives {len(rows)} contributions. "
    f"Their sum, `{fmt_array(gradient)}`, is $\\sin x + x\\cos x + 1$ at $x = {x0}$."
)
