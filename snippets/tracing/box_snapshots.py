"""What a traced function really receives: boxes, their values, levels and nodes, captured
while `grad` runs."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.tracer import Box
from bookkit import checked, fmt_array, given, md_table, text

# --8<-- [start:spy]
seen = []  # (expression, object) pairs, filled while the function is being traced


def f(x):
    seen.append(("x", x))
    y = anp.sin(x)
    seen.append(("y = anp.sin(x)", y))
    z = y * 3.0
    seen.append(("z = y * 3.0", z))
    return z


gradient = grad(f)(0.5)
# --8<-- [end:spy]

# What each box should hold, computed without the engine: the values with plain floats, the
# level of the only trace (the first one opened, 0), and the number of parents each primitive
# call has (sin: one boxed argument; multiply by a constant: one).
expected = {
    "x": (0.5, "root", 0),
    "y = anp.sin(x)": (np.sin(0.5), "sin", 1),
    "z = y * 3.0": (np.sin(0.5) * 3.0, "multiply", 1),
}
rows = []
for expression, obj in seen:
    assert isinstance(obj, Box), "inside grad, every value derived from x is a box"
    node = obj._node
    primitive_name = "root" if node.fun is None else node.fun.__name__
    value, primitive_expected, parents = expected[expression]
    assert primitive_name == primitive_expected
    rows.append(
        [
            f"`{expression}`",
            f"`{type(obj).__name__}`",
            checked(obj._value, against=value, shown_as=fmt_array),
            checked(obj._trace, against=0, shown_as=str),
            f"`{type(node).__name__}`",
            f"`{primitive_name}`",
            checked(len(node.parents), against=parents, shown_as=str),
        ]
    )
assert not isinstance(gradient, Box)
assert seen[1][1]._node.parents == (seen[0][1]._node,)

print(
    md_table(
        ["expression", "type", "`._value`", "`._trace`", "node type", "node's primitive", "parents"],
        rows,
    )
)
print()
print(
    text(
        "After `grad` returns, the result is a plain `{kind}`: `{value}`, which is $3 \\cos({x})$.",
        x=given(0.5),
        kind=type(gradient).__name__,
        value=fmt_array(checked(gradient, against=3.0 * np.cos(0.5), rtol=1e-15)),
    )
)
