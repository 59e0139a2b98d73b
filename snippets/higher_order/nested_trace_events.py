"""State snapshot of grad(grad(tanh)): the inner backward pass is recorded by the outer trace."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record
from bookkit import checked, events_table, given, text

# --8<-- [start:record]
x = 0.5
with record() as recording:
    second_derivative = grad(grad(anp.tanh))(x)
# --8<-- [end:record]

t = np.tanh(x)
s = 1 - t**2  # the first derivative
events = recording.events
first_visit = next(i for i, e in enumerate(events) if e.kind == "visit")
last_forward = max(i for i, e in enumerate(events) if e.kind == "forward")
# The inner backward pass ends when it reaches its own root, the first root to be visited.
inner_root_visit = next(i for i, e in enumerate(events) if e.kind == "visit" and e.primitive == "root")
assert first_visit < last_forward < inner_root_visit  # forward events *during* a backward pass


def phase(event) -> str:
    index = events.index(event)
    if index < first_visit:
        return "tracing tanh (both levels)"
    if index <= inner_root_visit:
        return "inner backward pass, recorded by the outer trace"
    return "outer backward pass"


phases = [phase(e) for e in events]
inner_backward_forwards = [
    e.primitive for e, p in zip(events, phases, strict=True) if e.kind == "forward" and p.startswith("inner")
]
assert {"power", "subtract", "multiply"} <= set(inner_backward_forwards)
# What each event must hold, by hand. Outer trace: 0 the input, 1 tanh, then the inner rule's
# power, subtract and multiply; inner trace: its root, and its own tanh node.
node_primitive = {e.node: e.primitive for e in recording.of_kind("forward")}
outer_tanh, inner_tanh = (e.node for e in recording.of_kind("forward")[:2])
power, subtract, multiply = (next(n for n, p in node_primitive.items() if p == name)
                             for name in ("power", "subtract", "multiply"))
inner_root = next(e.node for e in events if e.kind == "visit" and e.primitive == "root")
forward_value = {outer_tanh: t, inner_tanh: t, power: t**2, subtract: s, multiply: 1.0 * s}
cotangent = {inner_tanh: 1.0, inner_root: s,  # the inner pass: seed 1, tanh's rule gives s
             multiply: 1.0, subtract: 1.0, power: -1.0, outer_tanh: -2 * t, 0: -2 * t * s}
contribution = {(inner_tanh, 0): s, (multiply, 1): 1.0, (subtract, 1): -1.0,
                (power, 0): -2 * t, (outer_tanh, 0): -2 * t * s}

unbroadcast_input = {(subtract, 1): cotangent[subtract]}


def expected(event):
    if event.kind == "forward":
        return forward_value[event.node]
    if event.kind in ("visit", "accumulate"):
        return cotangent[event.node]
    if event.kind == "vjp":
        return contribution[event.node, event.argnum]
    # unbroadcast stages of scalars change nothing; they see what the rule sums, which for
    # subtract's second argument is the cotangent before the rule negates it (reduce_then).
    following = next(e for e in events[events.index(event):] if e.kind == "vjp")
    return unbroadcast_input.get((following.node, following.argnum),
                                 contribution[following.node, following.argnum])


print(events_table(events, ["step", "kind", "node", "primitive", "argnum", "value", ("phase", phase)],
                   checks={"value": expected}, tolerance={"value": 1e-15}))
print(text(
    "\nThe `forward` rows in the middle phase are the inner rule `g * (1 - ans**2)` running on "
    "boxes of the outer trace: {names}. The outer backward pass then walks back through them "
    "and returns {result:.4f}, which is $-2\\tanh x\\,(1 - \\tanh^2 x)$ at $x$ = {x:g}.",
    x=given(x),
    names=", ".join(f"`{p}`" for p in inner_backward_forwards),
    result=checked(second_derivative, against=-2 * t * s, rtol=1e-14),
))
