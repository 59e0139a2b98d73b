"""The other tempting shortcut: skip the ordering and push every contribution down the graph
at once, recursively. The answer is right, the work grows with the number of paths."""

import numpy as np

from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.inspect import record
from ad_core.tracer import trace
from bookkit import md_table


# --8<-- [start:eager]
def backward_eagerly(node, g, totals, calls):
    """Send g to every parent now and recurse: one walk per path."""
    if not node.parents:
        totals.append(g)
    for parent, vjp in zip(node.parents, node.vjps, strict=True):
        calls[0] += 1
        backward_eagerly(parent, vjp(g), totals, calls)


# --8<-- [end:eager]


# --8<-- [start:diamonds]
def diamonds(x, levels):
    for _ in range(levels):
        x = anp.sin(x) * anp.cos(x)  # x is used twice: two paths per level
    return x


# --8<-- [end:diamonds]


rows = []
for levels in [1, 2, 4, 8, 12]:
    x0 = 0.7
    root = VJPNode.new_root(x0)
    _, end_node = trace(root, lambda x, levels=levels: diamonds(x, levels), x0)
    totals, calls = [], [0]
    backward_eagerly(end_node, 1.0, totals, calls)
    eager = sum(totals)
    with record() as recording:
        ordered = backward_pass(1.0, end_node)
    ordered_calls = len(recording.of_kind("vjp"))
    step = 1e-6
    central = (diamonds(x0 + step, levels) - diamonds(x0 - step, levels)) / (2 * step)
    assert np.isclose(eager, ordered, rtol=1e-12)
    assert np.isclose(ordered, central, rtol=1e-6, atol=1e-9)
    assert len(totals) == 2**levels  # one arrival at the root per path
    assert ordered_calls == 4 * levels  # sin, cos and the two arguments of multiply
    rows.append(
        [
            str(levels),
            f"{2**levels:,}",
            f"{calls[0]:,}",
            str(ordered_calls),
            "yes" if np.isclose(eager, ordered, rtol=1e-12) else "no",
        ]
    )

print(
    md_table(
        [
            "levels",
            "paths to the root",
            "VJP calls, eager recursion",
            "VJP calls, `backward_pass`",
            "same gradient?",
        ],
        rows,
        align=["right", "right", "right", "right", "left"],
    )
)
