"""Forward mode on the chapter-2 function at (2, 5): the tangents the engine computes, in order."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_jvp
from ad_core.inspect import record
from bookkit import events_table, fmt_array, md_table


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
assert value == np.log(x1) + x1 * x2 - np.sin(x2)
np.testing.assert_allclose(along_x1, 1 / x1 + x2, rtol=1e-15)
np.testing.assert_allclose(along_x2, x1 - np.cos(x2), rtol=1e-15)
gradient = grad(f)(point)
np.testing.assert_allclose(gradient, [along_x1, along_x2], rtol=1e-15)

print(md_table(
    ["direction $\\dot x$", "$f(x)$", "$J\\dot x$ from `make_jvp`", "closed form", "`grad(f)` entry"],
    [
        ["$(1, 0)$", value, along_x1, "$1/x_1 + x_2$", gradient[0]],
        ["$(0, 1)$", value, along_x2, "$x_1 - \\cos x_2$", gradient[1]],
    ],
))
print(
    f"\nTwo forward passes give the two partial derivatives; one reverse pass gives both "
    f"(`grad(f)(x) = {fmt_array(gradient)}`). For a function of $n$ inputs forward mode needs "
    "$n$ passes for the gradient, which is why losses are differentiated in reverse mode.\n"
)

# --8<-- [start:record]
with record() as recording:
    make_jvp(f)(point)(np.array([1.0, 0.0]))
# --8<-- [end:record]
events = recording.of_kind("forward", "jvp")
jvp_events = recording.of_kind("jvp")
assert recording.of_kind("visit") == [], "forward mode has no backward pass"
output_node = events[-1].node
output_tangent = sum(e.value for e in jvp_events if e.node == output_node)
np.testing.assert_allclose(output_tangent, along_x1, rtol=1e-15)
print("The recorder's events for the direction $\\dot x = (1, 0)$:\n")
print(events_table(events, [
    "step", "kind", "node", "primitive", "argnum",
    ("parents", lambda e: ", ".join(map(str, e.detail["parents"])) if "parents" in e.detail else None),
    ("tangent in", lambda e: e.detail.get("tangent_in")),
    ("value (forward) or tangent out (jvp)", lambda e: e.value),
]))
print(
    f"\nThere is no `visit` or `accumulate` event: each `jvp` row runs while its node is "
    f"created, from tangents that already exist, and the last tangent, "
    f"`{fmt_array(along_x1)}`, is $\\partial f / \\partial x_1$."
)
