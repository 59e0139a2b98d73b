"""What a traced function really receives: boxes, their values, levels and nodes, captured
while `grad` runs."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.tracer import Box
from bookkit import fmt_array, md_table

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

rows = []
for expression, obj in seen:
    assert isinstance(obj, Box), "inside grad, every value derived from x is a box"
    node = obj._node
    primitive_name = "root" if node.fun is None else node.fun.__name__
    rows.append(
        [
            f"`{expression}`",
            f"`{type(obj).__name__}`",
            fmt_array(obj._value),
            str(obj._trace),
            f"`{type(node).__name__}`",
            f"`{primitive_name}`",
            str(len(node.parents)),
        ]
    )
assert np.isclose(gradient, 3.0 * np.cos(0.5), rtol=1e-15)
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
    f"After `grad` returns, the result is a plain `{type(gradient).__name__}`: "
    f"`{fmt_array(gradient)}`, which is $3 \\cos(0.5)$."
)
