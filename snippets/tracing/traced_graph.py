"""The graph a trace leaves behind, drawn from `ad_core.recorder.trace_graph`."""

import numpy as np

from ad_core import grad, make_vjp
from ad_core import numpy as anp
from ad_core.recorder import record, trace_graph
from bookkit import checked, fmt_array, fmt_shape, md_table, mermaid_graph, text

# --8<-- [start:model]
w = np.array([0.5, -1.0, 2.0])


def loss(x):
    hidden = anp.tanh(x * w)
    return anp.sum(hidden**2)


x = np.array([1.0, 0.5, -0.25])
graph = trace_graph(loss, x)
# --8<-- [end:model]


def ids(numbers) -> str:
    return ", ".join(map(str, numbers)) or "—"


print(mermaid_graph(graph, title="loss(x) = sum(tanh(x * w) ** 2)"))
print()
# Checked against NumPy alone (the values) and against the recorder's own numbering of a second
# trace (ids and parents): the chain x -> x * w -> tanh -> square -> sum.
chain = [x, x * w]
chain += [np.tanh(chain[-1])]
chain += [chain[-1] ** 2]
chain += [np.sum(chain[-1])]
with record() as recording:
    make_vjp(loss)(x)
recorded = {event.node: event for event in recording.of_kind("forward")}
rows = []
for position, node in enumerate(graph.nodes):
    event = recorded.get(node.id)
    rows.append(
        [
            checked(node.id, against=position if event is None else event.node, shown_as=str),
            f"`{node.primitive}`",
            checked(
                fmt_shape(node.shape),
                against=fmt_shape(np.shape(chain[position])),
                shown_as=lambda s: f"`{s}`",
            ),
            # As lists: an empty tuple is one shared object, which checked() takes for a self-check.
            checked(
                list(node.parents),
                against=[] if event is None else list(event.detail["parents"]),
                shown_as=ids,
            ),
            checked(
                list(node.parent_argnums),
                against=[] if event is None else list(event.detail["argnums"]),
                shown_as=ids,
            ),
            checked(node.value, against=chain[position], rtol=1e-15, shown_as=fmt_array),
        ]
    )
print(md_table(["id", "primitive", "shape", "parents", "as argument", "value"], rows))

root, *_, output = graph.nodes
assert root.is_root and graph.output == output.id
# Constants such as `w` and the exponent 2 are not nodes: only values derived from x are.
assert all(node.is_root or node.parents for node in graph.nodes)
expected_gradient = 2 * np.tanh(x * w) * (1 - np.tanh(x * w) ** 2) * w
assert np.allclose(grad(loss)(x), expected_gradient, rtol=1e-14)
print()
print(
    text(
        "{count} nodes: the root and one per primitive call. The array `w` and the exponent of "
        "the square never appear as nodes: they were not derived from the input, so no box "
        "carried them, and each rule keeps them as constants in its closure.",
        count=checked(len(graph.nodes), against=1 + len(recorded)),
    )
)
