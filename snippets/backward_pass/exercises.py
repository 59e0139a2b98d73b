"""Self-test for the chapter on the backward pass; every answer is computed and checked."""

import numpy as np

from ad_core import make_vjp
from ad_core import numpy as anp
from ad_core.extend import defvjp, primitive
from ad_core.recorder import record
from bookkit import checked, collapsible, fmt_array, given, md_table, observed, text

# 1. Visit order and cotangents for sin(x) * cos(x).
x0 = 0.7
with record() as recording:
    vjp, value = make_vjp(lambda x: anp.sin(x) * anp.cos(x))(x0)
    gradient = vjp(1.0)
primitive_of = {e.node: e.primitive for e in recording.of_kind("forward")}
visits = recording.of_kind("visit")
# By hand: the output holds the seed 1; sin's node gets cos x (the other factor), cos's node
# gets sin x; the root adds cos x * cos x and sin x * (-sin x).
held_by_hand = {"multiply": 1.0, "sin": np.cos(x0), "cos": np.sin(x0), "root": np.cos(2 * x0)}
rows = [
    [
        given(i + 1, shown_as=str),
        f"`{primitive_of.get(e.node, 'root')}`",
        checked(
            e.value, against=held_by_hand[primitive_of.get(e.node, "root")], rtol=1e-14, shown_as=fmt_array
        ),
    ]
    for i, e in enumerate(visits)
]
visited = [primitive_of.get(e.node, "root") for e in visits]
assert visited[0] == "multiply" and visited[-1] == "root"
print(
    collapsible(
        text(
            "1. For `sin(x) * cos(x)` at `x = {x0}`, in what order are the nodes visited, and "
            "what cotangent does each hold when it is visited?",
            x0=given(x0),
        ),
        md_table(["visit", "node", "cotangent held"], rows)
        + text(
            "\n\nThe output first, with the seed; the root last, with "
            "$\\cos^2 x - \\sin^2 x = \\cos 2x = {root}$. The root is the only node with two "
            "children, so it must wait for both.",
            root=fmt_array(checked(gradient, against=np.cos(x0) ** 2 - np.sin(x0) ** 2, rtol=1e-14)),
        ),
    )
)

# 2. One trace, several backward passes; the result is linear in the seed.
with record() as reuse:
    vjp, value = make_vjp(lambda x: anp.sum(anp.tanh(x) ** 2))(np.array([0.5, -1.0]))
    once = vjp(1.0)
    thrice = vjp(3.0)
traces = len(reuse.of_kind("forward"))
passes = sum(1 for e in reuse.of_kind("visit") if e.node == reuse.of_kind("visit")[0].node)
point2 = np.array([0.5, -1.0])
by_hand = 2 * np.tanh(point2) * (1 - np.tanh(point2) ** 2)
print(
    collapsible(
        text(
            "2. You call the `vjp` that `make_vjp` returned twice, with seeds `{one}` and "
            "`{three}`. How many traces and backward passes run, and how are the results related?",
            one=given(1.0),
            three=given(3.0),
        ),
        text(
            "The function was traced once ({traces} `forward` events, one per primitive) and "
            "{passes} backward passes ran over the same graph. The results are `{once}` and "
            "`{thrice}`: three times the first, because every VJP is linear in its cotangent, so "
            "the whole pass is linear in the seed.",
            traces=checked(traces, against=3),  # tanh, the square, the sum
            passes=checked(passes, against=2),  # one per call of vjp
            once=fmt_array(checked(once, against=by_hand, rtol=1e-14)),
            thrice=fmt_array(checked(thrice, against=3.0 * by_hand, rtol=1e-14)),
        ),
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
        text(
            "3. A VJP rule returns a cotangent of shape {shape} for a scalar argument. Where does "
            "the engine notice, and what does it say?",
            shape=given((2,)),  # the shape the wrong rule above constructs
        ),
        "In `backward_pass`, right after calling the rule and before adding the contribution "
        "anywhere:\n\n"
        + observed(message)
        + "\nWithout the check, NumPy would broadcast the scalar cotangent of `x` against the "
        "wrong contribution and the error would surface later, far from its cause, or not at all.",
    )
)
