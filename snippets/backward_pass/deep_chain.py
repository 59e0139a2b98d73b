"""Why toposort is iterative: a recursive depth-first sort fails on a long chain, the engine's
does not."""

import sys

import numpy as np

from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.tracer import toposort, trace
from bookkit import fmt_array, md_table


# --8<-- [start:recursive]
def recursive_toposort(end_node):
    """Post-order depth-first search: one Python frame per level."""
    order, seen = [], set()

    def visit(node):
        seen.add(node)
        for parent in node.parents:
            if parent not in seen:
                visit(parent)
        order.append(node)

    visit(end_node)
    return order[::-1]


# --8<-- [end:recursive]


def chain(x, length):
    for _ in range(length):
        x = x + anp.sin(x) * 0.01  # three primitives per link
    return x


limit = sys.getrecursionlimit()
rows = []
for length in [10, limit // 10, limit]:
    x0 = 0.3
    _, end_node = trace(VJPNode.new_root(x0), lambda x, n=length: chain(x, n), x0)
    iterative = toposort(end_node)
    try:
        recursive = recursive_toposort(end_node)
        recursive_outcome = f"{len(recursive):,} nodes"
        assert [id(n) for n in recursive] != [] and set(recursive) == set(iterative)
    except RecursionError:
        recursive_outcome = "`RecursionError`"
    gradient = backward_pass(1.0, end_node)
    step = 1e-6
    central = (chain(x0 + step, length) - chain(x0 - step, length)) / (2 * step)
    assert np.isclose(gradient, central, rtol=1e-6)
    rows.append([f"{length:,}", f"{len(iterative):,} nodes", recursive_outcome, fmt_array(gradient)])

assert rows[-1][2] == "`RecursionError`" and rows[0][2] != "`RecursionError`"
print(
    md_table(
        ["links in the chain", "engine's `toposort`", "recursive sort", "gradient (checked)"],
        rows,
        align=["right", "right", "right", "right"],
    )
)
print()
print(
    f"Python allows {limit:,} nested calls here (`sys.getrecursionlimit()`). A chain that long "
    "is nothing unusual: a loop of a few thousand steps, or an unrolled recurrent network, "
    "builds one."
)
