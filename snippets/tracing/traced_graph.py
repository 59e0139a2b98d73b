"""The graph a trace leaves behind, drawn from `ad_core.inspect.trace_graph`."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.inspect import trace_graph
from bookkit import fmt_array, md_table, mermaid_graph

# --8<-- [start:model]
w = np.array([0.5, -1.0, 2.0])


def loss(x):
    hidden = anp.tanh(x * w)
    return anp.sum(hidden**2)


x = np.array([1.0, 0.5, -0.25])
graph = trace_graph(loss, x)
# --8<-- [end:model]

print(mermaid_graph(graph, title="loss(x) = sum(tanh(x * w) ** 2)"))
print()
rows = []
for node in graph.nodes:
    rows.append(
        [
            str(node.id),
            f"`{node.primitive}`",
            f"`{node.shape}`",
            ", ".join(map(str, node.parents)) or "—",
            ", ".join(map(str, node.parent_argnums)) or "—",
            fmt_array(node.value),
        ]
    )
print(md_table(["id", "primitive", "shape", "parents", "as argument", "value"], rows))

root, *_, output = graph.nodes
assert root.is_root and graph.output == output.id
assert np.isclose(output.value, np.sum(np.tanh(x * w) ** 2), rtol=1e-15)
# Constants such as `w` and the exponent 2 are not nodes: only values derived from x are.
assert all(node.is_root or node.parents for node in graph.nodes)
expected_gradient = 2 * np.tanh(x * w) * (1 - np.tanh(x * w) ** 2) * w
assert np.allclose(grad(loss)(x), expected_gradient, rtol=1e-14)
print()
print(
    f"{len(graph.nodes)} nodes: the root and one per primitive call. The array `w` and the "
    "exponent `2` never appear as nodes: they were not derived from the input, so no box "
    "carried them, and each rule keeps them as constants in its closure."
)
