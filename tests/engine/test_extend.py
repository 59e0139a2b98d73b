"""`ad_core.extend`, the one import of a rule author: a new primitive with its VJP and JVP rules,
`def_linear` for a function linear in each argument, and `unbroadcast_f` to give a rule's
cotangent its argument's shape."""

from __future__ import annotations

import numpy as np

import ad_core.numpy as anp
from ad_core import elementwise_grad, grad, make_jvp
from ad_core.extend import def_linear, defjvp, defvjp, primitive, unbroadcast_f

from ._oracle import directional_derivative, numerical_grad


def test_user_primitive_with_vjp_and_jvp_rules(rng) -> None:
    @primitive
    def softplus(x):
        return np.log1p(np.exp(x))

    defvjp(softplus, lambda ans, x: lambda g: g / (1.0 + np.exp(-x)))
    defjvp(softplus, lambda g, ans, x: g / (1.0 + np.exp(-x)))
    x = rng.standard_normal(5)
    expected = numerical_grad(lambda v: np.sum(np.log1p(np.exp(v))), [x])
    np.testing.assert_allclose(grad(lambda v: anp.sum(softplus(v)))(x), expected, rtol=1e-9)
    np.testing.assert_allclose(elementwise_grad(softplus)(x), expected, rtol=1e-9)
    np.testing.assert_allclose(make_jvp(softplus)(x)(np.ones(5))[1], expected, rtol=1e-9)


def test_def_linear_makes_the_jvp_the_function_itself(rng) -> None:
    # As in HIPS/autograd, def_linear defines forward mode only: for f linear in each argument,
    # the JVP with respect to an argument is f applied with the tangent in that slot.
    @primitive
    def scale_rows(weights, x):
        return weights[:, None] * x

    def_linear(scale_rows)
    weights, x = rng.standard_normal(3), rng.standard_normal((3, 2))
    tangent_x, tangent_w = rng.standard_normal((3, 2)), rng.standard_normal(3)
    _, along_x = make_jvp(scale_rows, 1)(weights, x)(tangent_x)
    _, along_w = make_jvp(scale_rows, 0)(weights, x)(tangent_w)
    np.testing.assert_allclose(
        along_x, directional_derivative(scale_rows, [weights, x], 1, tangent_x), rtol=1e-9
    )
    np.testing.assert_allclose(
        along_w, directional_derivative(scale_rows, [weights, x], 0, tangent_w), rtol=1e-9
    )


def test_unbroadcast_f_gives_a_user_rule_the_input_shape(rng) -> None:
    @primitive
    def shifted_product(x, y):
        return x * y + 1.0

    defvjp(
        shifted_product,
        lambda ans, x, y: unbroadcast_f(x, lambda g: g * y),
        lambda ans, x, y: unbroadcast_f(y, lambda g: g * x),
    )
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((3,))
    d_dy = grad(lambda b: anp.sum(shifted_product(x, b)))(y)
    assert d_dy.shape == (3,)
    np.testing.assert_allclose(d_dy, x.sum(axis=0), rtol=1e-14)
