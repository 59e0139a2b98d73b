"""`None` in defvjp: the output does not depend on that argument, so its cotangent is zero."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive, unbroadcast_f
from ad_core.test_util import check_grads
from bookkit import fmt_array, md_table


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
np.testing.assert_array_equal(gradients[0], np.zeros(3))
np.testing.assert_array_equal(gradients[1], weights * (condition != 0))
np.testing.assert_array_equal(gradients[2], weights * (condition == 0))
check_grads(lambda x: choose(condition, x, y), modes=("rev",), order=1)(x)
check_grads(lambda y: choose(condition, x, y), modes=("rev",), order=1)(y)

names = ["condition", "x", "y"]
print(md_table(
    ["argument", "value", "gradient of `sum(weights * choose(...))`"],
    [[f"`{name}`", f"`{fmt_array(value)}`", f"`{fmt_array(gradient)}`"]
     for name, value, gradient in zip(names, [condition, x, y], gradients, strict=True)],
))
print(
    f"\nWith `weights = {fmt_array(weights)}`, `x` receives the weights where the condition "
    "holds and `y` where it does not; `condition` receives zeros of its own shape. "
    "`check_grads` passed for `x` and `y` (rev, order 1)."
)
