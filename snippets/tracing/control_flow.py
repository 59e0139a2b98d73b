"""Python control flow is decided while tracing: each input gets its own graph."""
# An if/else statement, not a conditional expression: the branch is what the page shows.
# ruff: noqa: SIM108

import numpy as np

from ad_core import grad
from ad_core.recorder import trace_graph
from bookkit import central_differences, checked, fmt_array, given, md_table


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


def doublings_by_hand(x: float) -> int:
    """How often the loop runs, counted with plain floats."""
    y, count = (x * x if x > 1.0 else 3.0 * x), 0
    while y < 10.0:
        y, count = y * 2.0, count + 1
    return count


rows = []
for x in [0.5, 1.5, 4.0]:
    graph = trace_graph(f, x)
    primitives = [node.primitive for node in graph.nodes if not node.is_root]
    gradient = grad(f)(x)
    central = central_differences(f, np.array(x))
    doublings = primitives.count("multiply") - 1
    expected = 2.0 ** doublings_by_hand(x) * (2 * x if x > 1.0 else 3.0)
    rows.append(
        [
            fmt_array(given(x)),
            "`x * x`" if x > 1.0 else "`3.0 * x`",
            checked(doublings, against=doublings_by_hand(x), shown_as=str),
            " → ".join(f"`{p}`" for p in primitives),
            checked(gradient, against=expected, shown_as=fmt_array),
            # Central differences with step 1e-6 on a piecewise polynomial: about 1e-8 accurate.
            checked(central, against=expected, rtol=1e-7, shown_as=lambda c: fmt_array(c, 6)),
        ]
    )

print(
    md_table(
        ["x", "branch taken", "loop iterations", "recorded primitives", "grad", "central difference"],
        rows,
    )
)
