"""Forward mode on the function of "Derivatives as linear maps": the tangents the engine computes."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_jvp
from ad_core.recorder import record
from bookkit import central_differences, checked, events_table, given, md_table, text


# --8<-- [start:function]
def f(x):
    x1, x2 = x[0], x[1]
    return anp.log(x1) + x1 * x2 - anp.sin(x2)


point = np.array([2.0, 5.0])
jvp_at_point = make_jvp(f)(point)  # traces nothing yet: one forward pass per call below
value, along_x1 = jvp_at_point(np.array([1.0, 0.0]))
_, along_x2 = jvp_at_point(np.array([0.0, 1.0]))
# --8<-- [end:function]

x1, x2 = point
closed_form = np.array([1 / x1 + x2, x1 - np.cos(x2)])
gradient = grad(f)(point)
# Closed forms and the engine round differently (1/x1 + x2 against the rules' products): 1e-15.
print(md_table(
    ["direction $\\dot x$", "$f(x)$", "$J\\dot x$ from `make_jvp`", "closed form", "`grad(f)` entry"],
    [
        ["$(1, 0)$", checked(value, against=np.log(x1) + x1 * x2 - np.sin(x2)),
         checked(along_x1, against=closed_form[0], rtol=1e-15), "$1/x_1 + x_2$",
         checked(gradient[0], against=closed_form[0], rtol=1e-15)],
        ["$(0, 1)$", checked(value, against=np.log(x1) + x1 * x2 - np.sin(x2)),
         checked(along_x2, against=closed_form[1], rtol=1e-15), "$x_1 - \\cos x_2$",
         checked(gradient[1], against=closed_form[1], rtol=1e-15)],
    ],
))
# Central differences, the book's independent oracle, agree to their own accuracy (1e-8).
print(text(
    "\nAt $x =$ {point}, two forward passes give the two partial derivatives; one reverse pass "
    "gives both (`grad(f)(x)` is {gradient}). For a function of $n$ inputs forward mode needs "
    "$n$ passes for the gradient, which is why losses are differentiated in reverse mode.\n",
    point=given(point),
    gradient=checked(gradient, against=central_differences(f, point), rtol=1e-8),
))

# --8<-- [start:record]
with record() as recording:
    make_jvp(f)(point)(np.array([1.0, 0.0]))
# --8<-- [end:record]
events = recording.of_kind("forward", "jvp")
assert recording.of_kind("visit", "accumulate") == [], "forward mode has no backward pass"

# What each node holds, by hand: its value, and its tangent along (1, 0), node by node in the
# order the function computes them (node 0 is the input).
dx1, dx2 = 1.0, 0.0
by_hand = [
    ("root", point, np.array([dx1, dx2])),
    ("array_getitem", x1, dx1),
    ("array_getitem", x2, dx2),
    ("log", np.log(x1), dx1 / x1),
    ("multiply", x1 * x2, dx1 * x2 + x1 * dx2),
    ("add", np.log(x1) + x1 * x2, dx1 / x1 + dx1 * x2 + x1 * dx2),
    ("sin", np.sin(x2), np.cos(x2) * dx2),
    ("subtract", np.log(x1) + x1 * x2 - np.sin(x2), dx1 / x1 + dx1 * x2 + x1 * dx2 - np.cos(x2) * dx2),
]
# The contribution each argument's rule sends into a node: d(node)/d(argument) * tangent.
contribution = {
    (1, 0): dx1, (2, 0): dx2, (3, 0): dx1 / x1, (4, 0): x2 * dx1, (4, 1): x1 * dx2,
    (5, 0): by_hand[3][2], (5, 1): by_hand[4][2], (6, 0): np.cos(x2) * dx2,
    (7, 0): by_hand[5][2], (7, 1): -by_hand[6][2],
}
# Which nodes feed which, read off f's expression: x[0] and x[1] read the input (node 0), log
# reads x1, the product reads x1 and x2, and so on.
parents_by_hand = {1: "0", 2: "0", 3: "1", 4: "1, 2", 5: "3, 4", 6: "2", 7: "5, 6"}
forward_events = {e.node: e for e in recording.of_kind("forward")}
assert [by_hand[e.node][0] for e in recording.of_kind("forward")] == [
    e.primitive for e in recording.of_kind("forward")
]


def tangent_in(event):
    if event.kind != "jvp":
        return None
    made = forward_events[event.node].detail  # the node's parents, in the order of its argnums
    return by_hand[made["parents"][made["argnums"].index(event.argnum)]][2]


def value_or_tangent(event):
    if event.kind == "forward":
        return by_hand[event.node][1]
    return contribution[event.node, event.argnum]


print("The recorder's events for the direction $\\dot x = (1, 0)$:\n")
print(events_table(
    events,
    ["step", "kind", "node", "primitive", "argnum",
     ("parents", lambda e: ", ".join(map(str, e.detail["parents"])) if "parents" in e.detail else None),
     ("tangent in", lambda e: e.detail.get("tangent_in")),
     ("value (forward) or tangent out (jvp)", lambda e: e.value)],
    checks={"tangent in": tangent_in, "value (forward) or tangent out (jvp)": value_or_tangent,
            "parents": lambda e: parents_by_hand[e.node] if e.kind == "forward" else None},
    tolerance={"value (forward) or tangent out (jvp)": 1e-15},
))
print(text(
    "\nThere is no `visit` or `accumulate` event: each `jvp` row runs while its node is "
    "created, from tangents that already exist, and the last node's tangent, {last}, is "
    "$\\partial f / \\partial x_1$.",
    last=checked(along_x1, against=central_differences(f, point)[0], rtol=1e-8),
))
