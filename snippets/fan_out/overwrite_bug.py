"""The classic bug: a backward pass that assigns contributions instead of adding them, run on
the same graphs as the engine's, and the finite-difference check that catches it."""

import numpy as np

from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.recorder import record, trace_graph
from ad_core.tracer import toposort, trace
from bookkit import checked, fmt_array, md_table


# --8<-- [start:broken]
def backward_pass_overwriting(g, end_node):
    """backward_pass with its accumulation replaced by an assignment."""
    outgrads = {end_node: g}
    for node in toposort(end_node):
        g = outgrads.pop(node)
        for parent, vjp in zip(node.parents, node.vjps, strict=True):
            outgrads[parent] = vjp(g)  # BUG: the last contribution wins
    return g


# --8<-- [end:broken]


# --8<-- [start:check]
def central_difference(f, x, step=1e-6):
    x = np.asarray(x, dtype=float)
    basis = np.eye(x.size).reshape((x.size, *x.shape))
    slopes = [(f(x + step * e) - f(x - step * e)) / (2 * step) for e in basis]
    return np.array(slopes).reshape(x.shape)


def passes_check(gradient, f, x):
    return np.shape(gradient) == np.shape(x) and np.allclose(
        gradient, central_difference(f, x), rtol=1e-6, atol=1e-8
    )


# --8<-- [end:check]


def both_passes(f, x):
    """Trace once, then run the engine's backward pass and the broken copy on that graph."""
    _, end_node = trace(VJPNode.new_root(x), f, x)
    return backward_pass(1.0, end_node), backward_pass_overwriting(1.0, end_node)


def verdict(ok):
    return "passes" if ok else "FAILS"


# Each case with the function whose gradient the overwriting copy should return if it keeps
# only the contribution that arrives last: every other use of the shared value frozen at x0.
# (backward_pass visits later nodes first, so the last arrival comes from the use traced first;
# in `x * x`, from the second argument of the one `multiply`.)
cases = [
    ("`tanh(3 * x)`", lambda x: anp.tanh(3.0 * x), 0.4, None),
    ("`x * sin(x) + x`", lambda x: x * anp.sin(x) + x, 1.2, lambda x: 1.2 * np.sin(x)),
    ("`x * x`", lambda x: x * x, 1.5, lambda x: 1.5 * x),
    (
        "`ln x1 + x1 * x2 - sin x2`",
        lambda x: anp.log(x[0]) + x[0] * x[1] - anp.sin(x[1]),
        np.array([2.0, 5.0]),
        lambda x: np.log(x[0]),
    ),
    (
        "`sum(tanh(W @ x) ** 2)`",
        lambda x: anp.sum(anp.tanh(anp.dot(np.array([[1.0, -2.0], [0.5, 1.5]]), x)) ** 2),
        np.array([0.3, -0.2]),
        None,
    ),
]
rows = []
for label, f, x, last_use_only in cases:
    graph = trace_graph(f, x)
    fan_out_nodes = sum(
        1 for node in graph.nodes if sum(other.parents.count(node.id) for other in graph.nodes) > 1
    )
    with record() as recording:
        backward_pass(1.0, trace(VJPNode.new_root(x), f, x)[1])
    # Counted another way: nodes the backward pass added into (a second arrival).
    added_into = {
        event.node for event in recording.of_kind("accumulate") if event.detail["before"] is not None
    }
    right, wrong = both_passes(f, x)
    central = central_difference(f, x)
    kept = central if last_use_only is None else central_difference(last_use_only, x)
    rows.append(
        [
            label,
            checked(fan_out_nodes, against=len(added_into)),
            checked(right, against=central, rtol=1e-6, atol=1e-8),
            checked(wrong, against=kept, rtol=1e-6, atol=1e-8),
            checked(central, against=right, rtol=1e-6, atol=1e-8, shown_as=lambda v: fmt_array(v, 6)),
            checked(passes_check(right, f, x), against=True, shown_as=verdict),
            # The claim of the section: the broken pass is caught exactly when a node fans out.
            checked(passes_check(wrong, f, x), against=fan_out_nodes == 0, shown_as=verdict),
        ]
    )

print(
    md_table(
        [
            "function",
            "nodes with fan-out",
            "`backward_pass`",
            "overwriting copy",
            "central difference",
            "engine check",
            "broken check",
        ],
        rows,
    )
)
