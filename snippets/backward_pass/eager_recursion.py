"""The other tempting shortcut: skip the ordering and push every contribution down the graph
at once, recursively. The answer is right, the work grows with the number of paths."""

import numpy as np

from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.recorder import record
from ad_core.tracer import trace
from bookkit import checked, given, md_table, yes_no


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


def derivative_by_hand(x, levels):
    """d/dx of the levels with plain floats: each level sin x cos x = sin(2x) / 2 has
    derivative cos 2x."""
    derivative = 1.0
    for _ in range(levels):
        derivative *= np.cos(2 * x)
        x = np.sin(x) * np.cos(x)
    return derivative


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
    closed = derivative_by_hand(x0, levels)
    rows.append(
        [
            given(levels, shown_as=str),
            # One arrival at the root per path: two choices (sin or cos) per level.
            checked(len(totals), against=2**levels, shown_as=lambda n: f"{n:,}"),
            # From each multiply: two VJPs into sin and cos, two into x, and then x's own levels
            # twice over: C(L) = 4 + 2 C(L - 1), C(0) = 0, so C(L) = 4 (2^L - 1).
            checked(calls[0], against=4 * (2**levels - 1), shown_as=lambda n: f"{n:,}"),
            # sin, cos and the two arguments of multiply, once per level.
            checked(ordered_calls, against=4 * levels, shown_as=str),
            checked(
                bool(np.isclose(eager, ordered, rtol=1e-12, atol=0)),
                against=bool(
                    np.isclose(eager, closed, rtol=1e-12) and np.isclose(ordered, closed, rtol=1e-12)
                ),
                shown_as=yes_no,
            ),
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
