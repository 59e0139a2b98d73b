"""`None` in defvjp: the output does not depend on that argument, so its cotangent is zero."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive, unbroadcast_f
from ad_core.test_util import check_grads
from bookkit import central_differences, checked, given, md_table, text


# --8<-- [start:rule]
@primitive
def choose(condition, x, y):
    return np.where(condition, x, y)


defvjp(
    choose,
    None,  # a small change of `condition` changes nothing: zero cotangent
    lambda ans, condition, x, y: unbroadcast_f(x, lambda g: anp.where(condition, g, 0.0)),
    lambda ans, condition, x, y: unbroadcast_f(y, lambda g: anp.where(condition, 0.0, g)),
)
# --8<-- [end:rule]

condition = np.array([1.0, 0.0, 1.0])  # a float mask, so it is a differentiable argument
x = np.array([1.0, 2.0, 3.0])
y = np.array([-1.0, -2.0, -3.0])
weights = np.array([1.0, 10.0, 100.0])


def loss(condition, x, y):
    return anp.sum(weights * choose(condition, x, y))


gradients = [grad(loss, argnum)(condition, x, y) for argnum in range(3)]
check_grads(lambda x: choose(condition, x, y), modes=("rev",), order=1)(x)
check_grads(lambda y: choose(condition, x, y), modes=("rev",), order=1)(y)
# Independent of the rules: central differences of the loss in each argument. For `condition`
# they see zero even at the zero entry, where both sides of it (plus and minus a step) are
# nonzero, so true: the jump sits exactly at zero and a symmetric difference steps over it.
oracles = [
    central_differences(lambda c: loss(c, x, y), condition),
    central_differences(lambda v: loss(condition, v, y), x),
    central_differences(lambda v: loss(condition, x, v), y),
]

names = ["condition", "x", "y"]
print(md_table(
    ["argument", "value", "gradient of `sum(weights * choose(...))`"],
    [[f"`{name}`", given(value), checked(gradient, against=oracle, atol=1e-7)]
     for name, value, gradient, oracle in zip(names, [condition, x, y], gradients, oracles, strict=True)],
))
step = 1e-3
nudged = condition + step * np.eye(3)[1]  # the middle entry, exactly 0, moved a little
jump = loss(nudged, x, y) - loss(condition, x, y)
print()
print(text(
    "With `weights` equal to {weights}, `x` receives the weights where the condition holds and "
    "`y` where it does not; `condition` receives zeros of its own shape. `check_grads` passed "
    "for `x` and `y` (`modes=(\"rev\",), order=1`). The middle entry of `condition` is exactly "
    "zero, and there the zero is not a derivative: moving it to {step} flips that entry to `x` "
    "and changes the loss by {jump}, however small the move.",
    weights=given(weights),
    step=given(step),
    jump=checked(jump, against=weights[1] * (x[1] - y[1])),
))
