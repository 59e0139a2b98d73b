"""Baydin et al. (2018), table 2: the primal and tangent traces of
f(x1, x2) = ln x1 + x1 * x2 - sin x2 at (2, 5), read from the engine's forward-mode events."""

import numpy as np

from ad_core import make_jvp
from ad_core import numpy as anp
from ad_core.recorder import record
from bookkit import checked, fmt_array, given, md_table, text


# --8<-- [start:function]
def f(x):
    x1, x2 = x[0], x[1]  # v_{-1}, v_0: the inputs, as two traced values
    v1 = anp.log(x1)
    v2 = x1 * x2
    v3 = anp.sin(x2)
    v4 = v1 + v2
    v5 = v4 - v3
    return v5


point = np.array([2.0, 5.0])
direction = np.array([1.0, 0.0])  # seed: x1 moves, x2 does not

with record() as recording:
    value, tangent = make_jvp(f)(point)(direction)
# --8<-- [end:function]

forward_events = recording.of_kind("forward")
jvp_events = recording.of_kind("jvp")

# The first two recorded primitives pick x1 and x2 out of the input vector; Baydin calls
# them v_{-1} and v_0, and the five that follow v_1 ... v_5.
names = {}
for position, event in enumerate(forward_events):
    names[event.node] = f"v_{{{position - 1}}}"
root_ids = set(forward_events[0].detail["parents"])
assert len(root_ids) == 1, "both inputs must come from the single traced root"
assert forward_events[0].primitive == forward_events[1].primitive


def dot(name: str) -> str:
    letter, _, subscript = name.partition("_")
    return r"\dot{" + letter + "}" + (f"_{subscript}" if subscript else "")


PRIMAL_FORMULA = {
    "log": lambda a: rf"\ln {a[0]}",
    "multiply": lambda a: rf"{a[0]} \times {a[1]}",
    "sin": lambda a: rf"\sin {a[0]}",
    "add": lambda a: rf"{a[0]} + {a[1]}",
    "subtract": lambda a: rf"{a[0]} - {a[1]}",
}
TANGENT_FORMULA = {
    "log": lambda a: rf"{dot(a[0])} / {a[0]}",
    "multiply": lambda a: rf"{dot(a[0])} \times {a[1]} + {a[0]} \times {dot(a[1])}",
    "sin": lambda a: rf"\cos {a[0]} \times {dot(a[0])}",
    "add": lambda a: rf"{dot(a[0])} + {dot(a[1])}",
    "subtract": lambda a: rf"{dot(a[0])} - {dot(a[1])}",
}

# An independent evaluation of both traces with plain floats, to check the engine against.
x1, x2 = point
dx1, dx2 = direction
expected_primal = {
    "v_{-1}": x1,
    "v_{0}": x2,
    "v_{1}": np.log(x1),
    "v_{2}": x1 * x2,
    "v_{3}": np.sin(x2),
}
expected_primal["v_{4}"] = expected_primal["v_{1}"] + expected_primal["v_{2}"]
expected_primal["v_{5}"] = expected_primal["v_{4}"] - expected_primal["v_{3}"]
expected_tangent = {
    "v_{-1}": dx1,
    "v_{0}": dx2,
    "v_{1}": dx1 / x1,
    "v_{2}": dx1 * x2 + x1 * dx2,
    "v_{3}": np.cos(x2) * dx2,
}
expected_tangent["v_{4}"] = expected_tangent["v_{1}"] + expected_tangent["v_{2}"]
expected_tangent["v_{5}"] = expected_tangent["v_{4}"] - expected_tangent["v_{3}"]

tangent_of = {}
for event in jvp_events:
    tangent_of[event.node] = tangent_of.get(event.node, 0.0) + event.value

rows = []
for event in forward_events:
    name = names[event.node]
    parent_names = [names.get(parent, "x") for parent in event.detail["parents"]]
    if event.node in (forward_events[0].node, forward_events[1].node):
        index = 0 if event.node == forward_events[0].node else 1
        primal_formula = rf"x_{{{index + 1}}} = x[{index}]"
        tangent_formula = rf"\dot{{x}}_{{{index + 1}}}"
    else:
        primal_formula = PRIMAL_FORMULA[event.primitive](parent_names)
        tangent_formula = TANGENT_FORMULA[event.primitive](parent_names)
    primal_value = float(event.value)
    tangent_value = float(tangent_of[event.node])
    rows.append(
        [
            f"${name} = {primal_formula}$",
            # The plain-float evaluation above rounds the same operations: exact up to 1e-14.
            checked(primal_value, against=expected_primal[name], rtol=1e-14, shown_as=fmt_array),
            f"${dot(name)} = {tangent_formula}$",
            checked(
                tangent_value, against=expected_tangent[name], rtol=1e-14, atol=1e-15, shown_as=fmt_array
            ),
            f"`{event.primitive}`",
        ]
    )

# The tangent of the output is df/dx1; a central difference confirms it.
step = 1e-6
finite_difference = (f(point + step * direction) - f(point - step * direction)) / (2 * step)
rows.append(
    [
        "$y = v_{5}$",
        checked(float(value), against=expected_primal["v_{5}"], rtol=1e-14, shown_as=fmt_array),
        r"$\dot{y} = \dot{v}_{5}$",
        checked(float(tangent), against=1 / x1 + x2, rtol=1e-14, shown_as=fmt_array),
        "",
    ]
)
# Forward mode: one JVP rule call per traced argument of each primitive; the two index
# primitives take one traced argument each, the five others as in Baydin's table.
TRACED_ARGUMENTS = {"log": 1, "multiply": 2, "sin": 1, "add": 2, "subtract": 2, "array_getitem": 1}

print(
    md_table(
        ["primal trace", "value", "tangent trace", "tangent", "engine primitive"],
        rows,
        align=["left", "right", "left", "right", "left"],
    )
)
print()
print(
    text(
        "The engine traced {primitives} primitives and called {rules} JVP rules, one per traced "
        "argument. The last tangent, $\\dot y = {last}$, is $\\partial f / \\partial x_1$ at "
        "$({x1:g}, {x2:g})$; a central difference with step {step} gives {difference}.",
        primitives=checked(len(forward_events), against=len(expected_primal)),
        rules=checked(len(jvp_events), against=sum(TRACED_ARGUMENTS[e.primitive] for e in forward_events)),
        last=fmt_array(checked(float(tangent), against=1 / x1 + x2, rtol=1e-14)),
        x1=given(x1),
        x2=given(x2),
        step=given(step, shown_as=lambda h: f"$10^{{{round(np.log10(h))}}}$"),
        # A central difference with step 1e-6 is accurate to about 1e-9 here.
        difference=fmt_array(checked(float(finite_difference), against=1 / x1 + x2, rtol=1e-8), precision=8),
    )
)
