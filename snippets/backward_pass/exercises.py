"""Self-test for the chapter on the backward pass; every answer is computed and checked."""

import numpy as np

from ad_core import make_vjp
from ad_core import numpy as anp
from ad_core.extend import defvjp, primitive
from ad_core.inspect import record
from bookkit import collapsible, fmt_array, md_table

# 1. Visit order and cotangents for sin(x) * cos(x).
x0 = 0.7
with record() as recording:
    vjp, value = make_vjp(lambda x: anp.sin(x) * anp.cos(x))(x0)
    gradient = vjp(1.0)
primitive_of = {e.node: e.primitive for e in recording.of_kind("forward")}
visits = recording.of_kind("visit")
rows = [
    [str(i + 1), f"`{primitive_of.get(e.node, 'root')}`", fmt_array(e.value)] for i, e in enumerate(visits)
]
assert np.isclose(gradient, np.cos(2 * x0), rtol=1e-14)
visited = [primitive_of.get(e.node, "root") for e in visits]
assert visited[0] == "multiply" and visited[-1] == "root"
print(
    collapsible(
        f"1. For `sin(x) * cos(x)` at `x = {x0}`, in what order are the nodes visited, and what "
        "cotangent does each hold when it is visited?",
        md_table(["visit", "node", "cotangent held"], rows)
        + "\n\nThe output first, with the seed; the root last, with "
        f"$\\cos^2 x - \\sin^2 x = \\cos 2x = {fmt_array(np.cos(2 * x0))}$. The root is the only "
        "node with two children, so it must wait for both.",
    )
)

# 2. One trace, several backward passes; the result is linear in the seed.
with record() as reuse:
    vjp, value = make_vjp(lambda x: anp.sum(anp.tanh(x) ** 2))(np.array([0.5, -1.0]))
    once = vjp(1.0)
    thrice = vjp(3.0)
traces = len(reuse.of_kind("forward"))
passes = sum(1 for e in reuse.of_kind("visit") if e.node == reuse.of_kind("visit")[0].node)
assert np.allclose(thrice, 3.0 * once, rtol=1e-15) and passes == 2
print(
    collapsible(
        "2. You call the `vjp` that `make_vjp` returned twice, with seeds `1.0` and `3.0`. How "
        "many traces and backward passes run, and how are the results related?",
        f"The function was traced once ({traces} `forward` events, one per primitive) and "
        f"{passes} backward passes ran over the same graph. The results are "
        f"`{fmt_array(once)}` and `{fmt_array(thrice)}`: three times the first, because every "
        "VJP is linear in its cotangent, so the whole pass is linear in the seed.",
    )
)


# 3. A rule that returns the wrong shape is caught by backward_pass.
@primitive
def double(x):
    return 2.0 * x


defvjp(double, lambda ans, x: lambda g: np.array([2.0 * g, 0.0]))  # wrong: x is a scalar
try:
    make_vjp(lambda x: double(x) + x)(1.5)[0](1.0)
except ValueError as error:
    message = str(error)
else:
    raise AssertionError("the wrong shape must be caught")
assert "double" in message and "shape" in message
print(
    collapsible(
        "3. A VJP rule returns a cotangent of shape `(2,)` for a scalar argument. Where does the "
        "engine notice, and what does it say?",
        "In `backward_pass`, right after calling the rule and before adding the contribution "
        "anywhere:\n\n"
        f"```text\n{message}\n```\n\n"
        "Without the check, NumPy would broadcast the scalar cotangent of `x` against the wrong "
        "contribution and the error would surface later, far from its cause, or not at all.",
    )
)
