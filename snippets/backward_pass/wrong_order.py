"""The tempting shortcut: visit nodes in the order a depth-first walk first reaches them.
Run on the running example's graph, it loses a contribution, and a finite-difference check
catches it."""

from pathlib import Path

import numpy as np

from ad_core import grad
from ad_core.core import VJPNode
from ad_core.recorder import record
from ad_core.tracer import trace
from bookkit import (
    Rendered,
    central_differences,
    checked,
    fmt_array,
    given,
    load_snippet_module,
    md_table,
    text,
    yes_no,
)

example = load_snippet_module(Path(__file__).with_name("_running_example.py"))


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
central = central_differences(example.f, example.POINT)
closed = example.closed_form_gradient(example.POINT)
# The same walk with plain floats: the oracle's local partials instead of the engine's VJPs.
parent_names = {
    names[event.node]: [names[parent] for parent in event.detail["parents"]]
    for event in recording.of_kind("forward")
}
arrived = {discovery_order[0]: 1.0}
for name in discovery_order:
    held = arrived.pop(name, 0.0)
    for argnum, parent in enumerate(parent_names.get(name, [])):
        arrived[parent] = arrived.get(parent, 0.0) + held * example.local_partial(name, argnum)
    if name == "x":
        wrong_by_hand = held
lost_by_hand = closed - wrong_by_hand
right_ok = bool(np.allclose(right, central, rtol=1e-8))
wrong_ok = bool(np.allclose(wrong, central, rtol=1e-8))


# What the page says about the walk: it visits v_0 after v_3 but before v_2, and x before v_{-1}.
position = {name: index for index, name in enumerate(discovery_order)}
assert position["v_{3}"] < position["v_{0}"] < position["v_{2}"]
assert position["x"] < position["v_{-1}"]
assert right_ok and not wrong_ok, "the shortcut must lose a contribution, and the check must see it"


def agrees(flag: bool, gradient) -> object:
    # Checked another way: against the closed form instead of the differences.
    return checked(flag, against=bool(np.allclose(gradient, closed, rtol=1e-8)), shown_as=yes_no)


print(
    Rendered("").join(
        [
            "Discovery order: ",
            ", ".join(f"${name}$" for name in discovery_order),
            ". Compare it with the toposort order above.",
        ]
    )
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
                checked(right[0], against=closed[0], rtol=1e-14, shown_as=fmt_array),
                checked(right[1], against=closed[1], rtol=1e-14, shown_as=fmt_array),
                agrees(right_ok, right),
            ],
            [
                "discovery order",
                # What the walk keeps: each node's cotangent as far as it had arrived when the
                # node was visited (lost_by_hand below).
                checked(wrong[0], against=closed[0] - lost_by_hand[0], rtol=1e-14, shown_as=fmt_array),
                checked(wrong[1], against=closed[1] - lost_by_hand[1], rtol=1e-14, shown_as=fmt_array),
                agrees(wrong_ok, wrong),
            ],
            [
                "central differences",
                # Step 1e-6: accurate to about 1e-9 here.
                checked(central[0], against=closed[0], rtol=1e-8, shown_as=lambda c: fmt_array(c, 6)),
                checked(central[1], against=closed[1], rtol=1e-8, shown_as=lambda c: fmt_array(c, 6)),
                given(None),  # no central difference of the wrong walk: it is not a function
            ],
        ],
    )
)
print()
print(
    text(
        "The shortcut lost `{lost}`: the contributions that reached a node after it had already "
        "been visited. They were stored, and nobody ever read them.",
        lost=fmt_array(checked(right - wrong, against=lost_by_hand, rtol=1e-14, atol=1e-15)),
    )
)
