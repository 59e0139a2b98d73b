"""Baydin et al. (2018), table 3: the adjoint trace of f(x1, x2) = ln x1 + x1 * x2 - sin x2
at (2, 5), read from the engine's reverse-mode events (visit, vjp, accumulate)."""

import numpy as np

from ad_core import grad
from ad_core.inspect import record
from bookkit import fmt_array, latex_matrix, load_snippet_module, md_table

# The running example of Part I: the same f as in the forward trace above, one primitive a line.
example = load_snippet_module("snippets/backward_pass/_running_example.py")
f = example.f

# --8<-- [start:reverse]
point = np.array([2.0, 5.0])
with record() as recording:
    gradient = grad(f)(point)  # one trace, one backward pass seeded with 1.0
# --8<-- [end:reverse]

forward_events = recording.of_kind("forward")
names = example.baydin_names(forward_events)  # node id -> "x", "v_{-1}", "v_{0}", "v_{1}", ...
primitive_of = {event.node: event.primitive for event in forward_events}
parents_of = {event.node: event.detail["parents"] for event in forward_events}


def bar(name: str) -> str:
    letter, _, subscript = name.partition("_")
    return r"\bar{" + letter + "}" + (f"_{subscript}" if subscript else "")


def local_derivative(child: int, argnum: int) -> str:
    """The partial derivative the VJP rule multiplies by, written in Baydin's names."""
    operands = [names[parent] for parent in parents_of[child]]
    own = operands[argnum]
    rule = {
        "log": rf"1 / {own}",
        "sin": rf"\cos {own}",
        "add": "1",
        "subtract": "1" if argnum == 0 else "(-1)",
    }
    if primitive_of[child] == "multiply":
        return operands[1 - argnum]
    if child in (forward_events[0].node, forward_events[1].node):
        index = 0 if child == forward_events[0].node else 1
        return rf"e_{{{index}}}"
    return rule[primitive_of[child]]


rows = []
visit_order = []
pending_vjp = None
for event in recording.events:
    if event.kind == "visit":
        visit_order.append(names[event.node])
    elif event.kind == "vjp":
        pending_vjp = event
    elif event.kind == "accumulate":
        child, parent = pending_vjp.node, event.node
        argnum = pending_vjp.argnum
        assert parents_of[child][argnum] == parent
        term = rf"{bar(names[child])} \cdot {local_derivative(child, argnum)}"
        if event.detail["before"] is None:
            line = rf"{bar(names[parent])} = {term}"
        else:
            line = rf"{bar(names[parent])} = {bar(names[parent])} + {term}"
        rows.append(
            [
                str(len(rows) + 1),
                f"${line}$",
                fmt_array(event.detail["contribution"]),
                fmt_array(event.value),
                str(event.detail["count"]),
            ]
        )

# Check the engine's final adjoints against the hand-derived partial derivatives.
expected = example.closed_form_gradient(point)  # [1 / x1 + x2, x1 - cos x2]
assert gradient.shape == point.shape
assert np.allclose(gradient, expected, rtol=1e-14, atol=0)
step = 1e-6
central = np.array([(f(point + step * e) - f(point - step * e)) / (2 * step) for e in np.eye(2)])
assert np.allclose(gradient, central, rtol=1e-8)
# Every edge of the graph carries exactly one contribution.
assert len(rows) == sum(len(parents) for parents in parents_of.values())

print(
    md_table(
        ["#", "adjoint trace (in the engine's order)", "contribution", "total so far", "arrivals"],
        rows,
        align=["right", "left", "right", "right", "right"],
    )
)
print()
print(
    "Nodes in the order `backward_pass` visited them: "
    + ", ".join(f"${name}$" for name in visit_order)
    + f". The result is $\\bar x = {latex_matrix(gradient, vector='row')}$, of shape "
    f"`{gradient.shape}`; central differences give "
    f"${latex_matrix(central, precision=6, vector='row')}$."
)
