"""Self-test for chapter 8: every answer is computed and checked here before it is shown."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian, make_jvp
from ad_core.extend import defjvp, primitive
from ad_core.inspect import record
from ad_core.numpy.jvps import broadcast_to_output
from ad_core.test_util import check_grads
from bookkit import assert_shape_then_close, collapsible, fmt_array


def f(x):
    return anp.log(x[0]) + x[0] * x[1] - anp.sin(x[1])


point = np.array([2.0, 5.0])

# 1. A diagonal direction.
_, diagonal = make_jvp(f)(point)(np.array([1.0, 1.0]))
gradient = grad(f)(point)
np.testing.assert_allclose(diagonal, gradient.sum(), rtol=1e-15)
print(collapsible(
    "What does one forward pass of `f` at (2, 5) with direction (1, 1) return?",
    f"The directional derivative $\\nabla f^\\top (1, 1) = (1/x_1 + x_2) + (x_1 - \\cos x_2)$ "
    f"= `{fmt_array(diagonal)}`: the sum of the two partial derivatives "
    f"`{fmt_array(gradient)}`. One pass gives one number, never the whole gradient.",
))

# 2. Passes for a full Jacobian.
weights = np.random.default_rng(81).standard_normal((2, 5))


def wide(x):
    return anp.tanh(weights @ x)


x = np.random.default_rng(82).standard_normal(5)
columns = []
with record() as recording:
    for basis in np.eye(5):
        columns.append(make_jvp(wide)(x)(basis)[1])
assert_shape_then_close(np.stack(columns, axis=1), jacobian(wide)(x))
tanh_jvps = sum(1 for e in recording.of_kind("jvp") if e.primitive == "tanh")
assert tanh_jvps == 5
print(collapsible(
    "`wide` maps shape (5,) to shape (2,). How many forward passes build its Jacobian, "
    "and how many reverse passes?",
    f"{len(columns)} forward passes, one per input direction (the recorder saw `tanh`'s JVP "
    f"rule run {tanh_jvps} times), each giving one column of the `{jacobian(wide)(x).shape}` "
    f"Jacobian; or {wide(x).size} reverse passes, one per output, each giving one row. "
    "Forward mode wins when there are fewer inputs than outputs.",
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
check_grads(my_div, modes=("fwd",), order=1)(numerator, divisor)
_, divisor_tangent = make_jvp(lambda y: my_div(numerator, y))(divisor)(np.ones(3))
assert divisor_tangent.shape == (2, 3)
print(collapsible(
    "Write the JVP rules of `x / y` when `y` of shape (3,) is broadcast against `x` of "
    "shape (2, 3).",
    "`lambda g, ans, x, y: broadcast_to_output(g / y, ans)` for `x` and "
    "`lambda g, ans, x, y: broadcast_to_output(-g * x / y**2, ans)` for `y`. Here "
    "`-g * x / y**2` already has the output's shape because `x` does; `broadcast_to_output` "
    "only acts when it does not. The tangent for `y` along ones has shape "
    f"`{divisor_tangent.shape}` and `check_grads` passed in forward mode for both arguments.",
))

# 4. Memory: a JVP node keeps no parents.
with record() as recording:
    make_jvp(f)(point)(np.array([1.0, 0.0]))
print(collapsible(
    "Why does `JVPNode` not store its parents, while `VJPNode` does?",
    "A JVP node computes its tangent the moment it is created, from tangents its parents "
    "already hold; nothing will ever flow back to them. A VJP node must wait for the "
    "backward pass, so it keeps its parents and closures alive until then. The recording of "
    f"one forward pass of `f` holds {len(recording.of_kind('jvp'))} `jvp` events and "
    f"{len(recording.of_kind('visit', 'accumulate'))} backward events.",
))
assert len(recording.of_kind("visit", "accumulate")) == 0
