"""The tempting shortcut: visit nodes in the order a depth-first walk first reaches them.
Run on the running example's graph, it loses a contribution, and a finite-difference check
catches it."""

import numpy as np

from ad_core import grad
from ad_core.core import VJPNode
from ad_core.inspect import record
from ad_core.tracer import trace
from bookkit import fmt_array, load_snippet_module, md_table

example = load_snippet_module("snippets/backward_pass/_running_example.py")


# --8<-- [start:discovery_order]
def backward_in_discovery_order(g, end_node):
    """backward_pass, visiting nodes as a depth-first walk reaches them."""
    order, seen, stack = [], set(), [end_node]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            order.append(node)
            stack.extend(node.parents)
    outgrads = {end_node: g}
    for node in order:
        g = outgrads.pop(node)  # whatever has arrived so far: maybe not everything
        for parent, vjp in zip(node.parents, node.vjps, strict=True):
            contribution = vjp(g)
            previous = outgrads.get(parent)
            total = contribution if previous is None else previous + contribution
            outgrads[parent] = total
        if not node.parents:
            root_cotangent = g
    return root_cotangent


# --8<-- [end:discovery_order]


root = VJPNode.new_root(example.POINT)
with record() as recording:
    _, end_node = trace(root, example.f, example.POINT)
names = example.baydin_names(recording.of_kind("forward"))

discovery_order = []
seen, stack = set(), [end_node]
while stack:  # the same walk, to print the order it produces
    node = stack.pop()
    if node not in seen:
        seen.add(node)
        discovery_order.append(names[recording.node_id(node)])
        stack.extend(node.parents)

wrong = backward_in_discovery_order(1.0, end_node)
right = grad(example.f)(example.POINT)
step = 1e-6
central = np.array(
    [
        (example.f(example.POINT + step * e) - example.f(example.POINT - step * e)) / (2 * step)
        for e in np.eye(2)
    ]
)
right_ok = np.allclose(right, central, rtol=1e-8)
wrong_ok = np.allclose(wrong, central, rtol=1e-8)
assert right_ok and not wrong_ok
assert np.allclose(right, example.closed_form_gradient(example.POINT), rtol=1e-14)

print(
    "Discovery order: "
    + ", ".join(f"${name}$" for name in discovery_order)
    + ". Compare it with the toposort order above."
)
print()
print(
    md_table(
        [
            "backward pass",
            r"$\partial f/\partial x_1$",
            r"$\partial f/\partial x_2$",
            "agrees with central differences?",
        ],
        [
            [
                "`backward_pass` (toposort)",
                fmt_array(right[0]),
                fmt_array(right[1]),
                "yes" if right_ok else "no",
            ],
            ["discovery order", fmt_array(wrong[0]), fmt_array(wrong[1]), "yes" if wrong_ok else "no"],
            ["central differences", fmt_array(central[0], 6), fmt_array(central[1], 6), "—"],
        ],
    )
)
lost = right - wrong
print()
print(
    f"The shortcut lost `{fmt_array(lost)}`: the contributions that reached a node after it had "
    "already been visited. They were stored, and nobody ever read them."
)
