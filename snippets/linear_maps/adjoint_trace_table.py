"""Baydin et al. (2018), table 3: the adjoint trace of f(x1, x2) = ln x1 + x1 * x2 - sin x2
at (2, 5), read from the engine's reverse-mode events (visit, vjp, accumulate)."""

import numpy as np

from ad_core import grad
from ad_core.recorder import record
from bookkit import (
    central_differences,
    checked,
    fmt_array,
    given,
    latex_matrix,
    load_snippet_module,
    md_table,
    text,
)

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
expected_total: dict[str, object] = {}
expected_count: dict[str, int] = {}
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
        contribution = example.contribution(names[child], argnum)
        expected_total[names[parent]] = expected_total.get(names[parent], 0.0) + contribution
        expected_count[names[parent]] = expected_count.get(names[parent], 0) + 1
        rows.append(
            [
                given(len(rows) + 1, shown_as=str),
                f"${line}$",
                # The closed-form adjoints round differently from the engine's products.
                checked(event.detail["contribution"], against=contribution, rtol=1e-14, shown_as=fmt_array),
                checked(event.value, against=expected_total[names[parent]], rtol=1e-14, shown_as=fmt_array),
                checked(event.detail["count"], against=expected_count[names[parent]], shown_as=str),
            ]
        )

expected = example.closed_form_gradient(point)  # [1 / x1 + x2, x1 - cos x2]
central = central_differences(f, point)
# Every edge of the graph carries exactly one contribution.
assert len(rows) == sum(len(parents) for parents in parents_of.values())
# Any order is valid if a node is visited after every node that uses it.
position = {name: index for index, name in enumerate(visit_order)}
assert all(position[names[child]] < position[names[p]] for child, ps in parents_of.items() for p in ps)

print(
    md_table(
        ["#", "adjoint trace (in the engine's order)", "contribution", "total so far", "arrivals"],
        rows,
        align=["right", "left", "right", "right", "right"],
    )
)
print()
print(
    text(
        "Nodes in the order `backward_pass` visited them: {order}. The result is "
        "$\\bar x = {gradient}$, of shape {shape}; central differences give ${central}$.",
        order=", ".join(f"${name}$" for name in visit_order),
        gradient=latex_matrix(checked(gradient, against=expected, rtol=1e-14), vector="row"),
        shape=checked(gradient.shape, against=point.shape),
        # Central differences with step 1e-6: about 1e-9 accurate here.
        central=latex_matrix(checked(central, against=expected, rtol=1e-8), precision=6, vector="row"),
    )
)
