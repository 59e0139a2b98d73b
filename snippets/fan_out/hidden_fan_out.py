"""Fan-out hides in ordinary expressions: count the edges out of the input, the additions the
engine performs into it, and check the gradient against its closed form."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.recorder import record, trace_graph
from bookkit import central_differences, checked, given, md_table, text

x = np.array([0.5, -1.0, 2.0])
cases = [
    ("`anp.sum(x + x)`", lambda v: anp.sum(v + v), 2.0 * np.ones(3)),
    ("`anp.sum(x * x)`", lambda v: anp.sum(v * v), 2.0 * x),
    ("`anp.dot(x, x)`", lambda v: anp.dot(v, v), 2.0 * x),
    ("`x[0] * x[2]`", lambda v: v[0] * v[2], np.array([x[2], 0.0, x[0]])),
    ("`anp.sum(anp.sum(x) * x)`", lambda v: anp.sum(anp.sum(v) * v), 2.0 * np.sum(x) * np.ones(3)),
    ("`anp.sum(anp.outer(x, x))`", lambda v: anp.sum(anp.outer(v, v)), 2.0 * np.sum(x) * np.ones(3)),
]
rows = []
for label, f, expected in cases:
    graph = trace_graph(f, x)
    root_id = graph.nodes[0].id
    edges = sum(node.parents.count(root_id) for node in graph.nodes)
    with record() as recording:
        gradient = grad(f)(x)
    forward = recording.of_kind("forward")
    recorded_root = forward[0].detail["parents"][0]
    arrivals = [e for e in recording.of_kind("accumulate") if e.node == recorded_root]
    assert edges >= 2
    assert np.allclose(central_differences(lambda v, f=f: float(f(v)), x), expected, rtol=1e-8)
    rows.append(
        [
            label,
            checked(edges, against=len(arrivals)),  # the traced graph against the backward pass
            checked(len(arrivals), against=edges),
            checked(gradient, against=expected, rtol=1e-14),  # the closed form
        ]
    )

print(text("With `x` equal to {x}:", x=given(x)))
print()
print(
    md_table(
        ["expression", "edges out of `x`", "contributions received by `x`", "gradient"],
        rows,
    )
)
