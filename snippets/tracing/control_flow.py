"""Python control flow is decided while tracing: each input gets its own graph."""
# An if/else statement, not a conditional expression: the branch is what the page shows.
# ruff: noqa: SIM108

import numpy as np

from ad_core import grad
from ad_core.inspect import trace_graph
from bookkit import fmt_array, md_table


# --8<-- [start:branchy]
def f(x):
    if x > 1.0:  # a plain boolean: Python picks the branch
        y = x * x
    else:
        y = 3.0 * x
    while y < 10.0:  # as many iterations as this input needs
        y = y * 2.0
    return y


# --8<-- [end:branchy]


rows = []
for x in [0.5, 1.5, 4.0]:
    graph = trace_graph(f, x)
    primitives = [node.primitive for node in graph.nodes if not node.is_root]
    gradient = grad(f)(x)
    step = 1e-6
    central = (f(x + step) - f(x - step)) / (2 * step)
    assert np.isclose(gradient, central, rtol=1e-7)
    doublings = primitives.count("multiply") - 1
    expected = 2.0**doublings * (2 * x if x > 1.0 else 3.0)
    assert gradient == expected
    rows.append(
        [
            fmt_array(x),
            "`x * x`" if x > 1.0 else "`3.0 * x`",
            str(doublings),
            " → ".join(f"`{p}`" for p in primitives),
            fmt_array(gradient),
            fmt_array(central, 6),
        ]
    )

print(
    md_table(
        ["x", "branch taken", "loop iterations", "recorded primitives", "grad", "central difference"],
        rows,
    )
)
