"""Self-test for "Forward mode": every answer is computed and checked here before it is shown."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian, make_jvp
from ad_core.core import JVPNode, VJPNode
from ad_core.extend import defjvp, primitive
from ad_core.numpy.jvps import broadcast_to_output
from ad_core.recorder import record
from ad_core.test_util import check_grads
from ad_core.tracer import trace
from bookkit import central_differences, checked, collapsible, given, text


def f(x):  # the function of the chapter's minimal example, written the same way
    x1, x2 = x[0], x[1]
    return anp.log(x1) + x1 * x2 - anp.sin(x2)


point = np.array([2.0, 5.0])

# 1. A diagonal direction.
direction = np.array([1.0, 1.0])
_, diagonal = make_jvp(f)(point)(direction)
x1, x2 = point
print(collapsible(
    text("What does one forward pass of `f` at {point} with direction {direction} return?",
         point=given(point), direction=given(direction)),
    text(
        "The directional derivative $\\nabla f^\\top \\dot x = (1/x_1 + x_2) + (x_1 - \\cos x_2)$ "
        "= {diagonal}: the sum of the two partial derivatives {gradient}. One pass gives one "
        "number, never the whole gradient.",
        # closed form and central differences round differently from the rules
        diagonal=checked(diagonal, against=(1 / x1 + x2) + (x1 - np.cos(x2)), rtol=1e-15),
        gradient=checked(grad(f)(point), against=central_differences(f, point), rtol=1e-8),
    ),
))

# 2. Passes for a full Jacobian.
weights = np.random.default_rng(81).standard_normal((2, 5))


def wide(x):
    return anp.tanh(weights @ x)


x = np.random.default_rng(82).standard_normal(5)
columns = []
with record() as forward_recording:
    for basis in np.eye(5):
        columns.append(make_jvp(wide)(x)(basis)[1])
with record() as reverse_recording:
    J = jacobian(wide)(x)  # ad_core's jacobian: one reverse pass per output entry
J_by_hand = (1 - np.tanh(weights @ x) ** 2)[:, None] * weights  # diag(1 - tanh^2) W
assert np.allclose(np.stack(columns, axis=1), J_by_hand, rtol=1e-14, atol=1e-15)
tanh_jvps = sum(1 for e in forward_recording.of_kind("jvp") if e.primitive == "tanh")
reverse_passes = sum(1 for e in reverse_recording.of_kind("visit") if e.primitive == "root")
print(collapsible(
    text("`wide` maps shape {n_in} to shape {n_out}. How many forward passes build its Jacobian, "
         "and how many reverse passes?",
         n_in=given(x.shape), n_out=checked(wide(x).shape, against=(weights.shape[0],))),
    text(
        "{passes} forward passes, one per input direction (the recorder saw `tanh`'s JVP rule "
        "run {passes} times), each giving one column of the {shape} Jacobian; or {rows} reverse "
        "passes, one per output (the recorder saw {rows} backward passes reach the input), each "
        "giving one row. Counted in passes, forward mode wins when a function has fewer inputs "
        "than outputs; `wide` has more, so reverse mode needs fewer here.",
        passes=checked(tanh_jvps, against=x.size),
        shape=checked(J.shape, against=J_by_hand.shape),
        rows=checked(reverse_passes, against=wide(x).size),
    ),
))


# 3. A JVP rule for a division by a broadcast divisor.
@primitive
def my_div(x, y):
    return x / y


defjvp(my_div,
       lambda g, ans, x, y: broadcast_to_output(g / y, ans),
       lambda g, ans, x, y: broadcast_to_output(-g * x / y**2, ans))
numerator = np.random.default_rng(83).standard_normal((2, 3))
divisor = np.random.default_rng(84).uniform(1.0, 2.0, size=3)
check_grads(my_div, modes=("fwd",), order=1)(numerator, divisor)  # both arguments
_, divisor_tangent = make_jvp(lambda y: my_div(numerator, y))(divisor)(np.ones(3))
unbroadcast_rule_shape = np.shape(-np.ones(3) * numerator / divisor**2)
print(collapsible(
    text("Write the JVP rules of `x / y` when `y` of shape {y} is broadcast against `x` of "
         "shape {x}.", y=given(divisor.shape), x=given(numerator.shape)),
    text(
        "`lambda g, ans, x, y: broadcast_to_output(g / y, ans)` for `x` and "
        "`lambda g, ans, x, y: broadcast_to_output(-g * x / y**2, ans)` for `y`. Here "
        "`-g * x / y**2` already has the output's shape {raw} because `x` does; "
        "`broadcast_to_output` only acts when it does not. The tangent for `y` along ones has "
        "shape {shape}, and `check_grads` passed in forward mode for both arguments.",
        raw=checked(unbroadcast_rule_shape, against=np.broadcast_shapes(numerator.shape, divisor.shape)),
        shape=checked(divisor_tangent.shape, against=numerator.shape),
    ),
))


# 4. Memory: a JVP node keeps no parents.
def reachable(node):
    """How many nodes can be reached from `node` by following `parents`."""
    seen, stack = set(), [node]
    while stack:
        current = stack.pop()
        if id(current) not in seen:
            seen.add(id(current))
            stack.extend(current.parents)
    return len(seen)


with record() as recording:
    _, forward_end = trace(JVPNode.new_root(point, np.array([1.0, 0.0])), f, point)
_, reverse_end = trace(VJPNode.new_root(point), f, point)
nodes_traced = len(recording.of_kind("forward")) + 1  # every primitive call, and the input
rule_calls = sum(len(e.detail["parents"]) for e in recording.of_kind("forward"))
print(collapsible(
    "Why does `JVPNode` not store its parents, while `VJPNode` does?",
    text(
        "A JVP node computes its tangent the moment it is created, from tangents its parents "
        "already hold; nothing will ever flow back to them. A VJP node must wait for the "
        "backward pass, so it keeps its parents and closures alive until then. Trace `f` once "
        "each way and follow `parents` from the output node: the reverse-mode output reaches "
        "all {nodes} nodes of the trace, the forward-mode output only itself ({alone}). The "
        "forward trace ran {jvps} JVP rules, one per traced argument of each node, and no "
        "backward step.",
        nodes=checked(reachable(reverse_end), against=nodes_traced),
        alone=checked(reachable(forward_end), against=1),
        jvps=checked(len(recording.of_kind("jvp")), against=rule_calls),
    ),
))
assert recording.of_kind("visit", "accumulate") == []
