"""Why toposort is iterative: a recursive depth-first sort fails on a long chain, the engine's
does not."""

import subprocess
import sys

import numpy as np

from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.tracer import toposort, trace
from bookkit import checked, fmt_array, given, md_table, text


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


def derivative_by_hand(x, length):
    """d/dx of the chain with plain floats: the product of each link's 1 + 0.01 cos x."""
    derivative = 1.0
    for _ in range(length):
        derivative *= 1 + 0.01 * np.cos(x)
        x = x + np.sin(x) * 0.01
    return derivative


# Python's default limit, read from a fresh interpreter: the process running this snippet may
# have raised its own (mkdocs does), and the page must show what a reader's script gets.
limit = int(subprocess.run([sys.executable, "-c", "import sys; print(sys.getrecursionlimit())"],
                           capture_output=True, text=True, check=True).stdout)
limit_here = sys.getrecursionlimit()
sys.setrecursionlimit(limit)
rows = []
outcomes = []
for length in [10, limit // 10, limit]:
    x0 = 0.3
    _, end_node = trace(VJPNode.new_root(x0), lambda x, n=length: chain(x, n), x0)
    iterative = toposort(end_node)
    nodes = 3 * length + 1  # three primitives per link, and the root
    try:
        recursive = recursive_toposort(end_node)
    except RecursionError:
        # The recursion nests at least once per link (each `add` visits the previous one), so a
        # chain of `limit` links must exceed the limit.
        recursive_outcome = checked(True, against=length >= limit, shown_as=lambda _: "`RecursionError`")
        outcomes.append("error")
    else:
        assert set(recursive) == set(iterative)
        recursive_outcome = text("{n:,} nodes", n=checked(len(recursive), against=nodes))
        outcomes.append("sorted")
    gradient = backward_pass(1.0, end_node)
    rows.append(
        [
            given(length, shown_as=lambda n: f"{n:,}"),
            text("{n:,} nodes", n=checked(len(iterative), against=nodes)),
            recursive_outcome,
            # The engine multiplies the same factors in another order: 1e-12.
            checked(gradient, against=derivative_by_hand(x0, length), rtol=1e-12, shown_as=fmt_array),
        ]
    )

sys.setrecursionlimit(limit_here)
assert outcomes[-1] == "error" and outcomes[0] == "sorted"
print(
    md_table(
        ["links in the chain", "engine's `toposort`", "recursive sort", "gradient (checked)"],
        rows,
        align=["right", "right", "right", "right"],
    )
)
print()
print(
    text(
        "Python allows {limit:,} nested calls by default (`sys.getrecursionlimit()` in a fresh "
        "interpreter; the experiment runs with that limit). A chain that long "
        "is nothing unusual: a loop of a few thousand steps, or an unrolled recurrent network, "
        "builds one.",
        limit=given(limit),
    )
)
