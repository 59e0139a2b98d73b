"""`ad_core.differential_operators`: the operators (grad, value_and_grad, elementwise_grad,
jacobian, hessian, hessian_vector_product, make_vjp, make_jvp, holomorphic_grad), their
`argnum`, keyword arguments and output checks. The rest of HIPS/autograd's operators are in
`test_operators_from_autograd.py`."""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import (
    elementwise_grad,
    grad,
    hessian,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_jvp,
    make_vjp,
    value_and_grad,
)

from ._oracle import (
    directional_derivative,
    numerical_grad,
    numerical_jacobian,
    numerical_vjp,
)


def weighted_product(x, y, scale=1.0):
    return scale * anp.sum(anp.sin(x) * y**2)


def test_grad_differentiates_the_chosen_argument(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    for argnum in (0, 1):
        computed = grad(weighted_product, argnum=argnum)(x, y)
        assert computed.shape == (3,)
        np.testing.assert_allclose(computed, numerical_grad(weighted_product, [x, y], argnum), rtol=1e-8)


def test_grad_accepts_a_negative_argnum(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    np.testing.assert_array_equal(
        grad(weighted_product, argnum=-1)(x, y), grad(weighted_product, argnum=1)(x, y)
    )


def test_grad_passes_keyword_arguments_through(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    np.testing.assert_allclose(
        grad(weighted_product)(x, y, scale=3.0), 3.0 * grad(weighted_product)(x, y), rtol=1e-14
    )


def test_grad_with_tuple_argnum_returns_one_gradient_per_argument(rng) -> None:
    # HIPS/autograd accepts argnum=(0, 1) and returns a tuple of gradients.
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    d_dx, d_dy = grad(weighted_product, argnum=(0, 1))(x, y)
    np.testing.assert_array_equal(d_dx, grad(weighted_product, argnum=0)(x, y))
    np.testing.assert_array_equal(d_dy, grad(weighted_product, argnum=1)(x, y))


def test_grad_of_a_python_float_is_a_scalar() -> None:
    computed = grad(lambda t: t**3)(2.0)
    assert np.shape(computed) == ()
    np.testing.assert_allclose(computed, numerical_grad(lambda t: t**3, [2.0]), rtol=1e-10)


def test_grad_accepts_an_output_with_one_entry_and_a_list_argnum(rng) -> None:
    """As in autograd: an output of shape (1,) or (1, 1) counts as a scalar, and `argnum` may
    be a list as well as a tuple."""
    x = rng.standard_normal(3)
    gradient = grad(lambda x: anp.sum(x**2, keepdims=True))(x)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, 2 * x, rtol=1e-15)
    gradient = grad(lambda x: anp.reshape(anp.dot(x, x), (1, 1)))(x)
    np.testing.assert_allclose(gradient, 2 * x, rtol=1e-15)
    with pytest.raises(TypeError, match=r"shape \(2,\)"):
        grad(lambda x: x[:2])(x)
    gradients = grad(lambda a, b: anp.sum(a * b**2), argnum=[0, 1])(x, 2 * x)
    assert type(gradients) is tuple and len(gradients) == 2
    np.testing.assert_allclose(gradients[0], 4 * x**2, rtol=1e-14)
    np.testing.assert_allclose(gradients[1], 4 * x**2, rtol=1e-14)


def test_value_and_grad_returns_both(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    value, gradient = value_and_grad(weighted_product)(x, y)
    assert value == weighted_product(x, y)
    np.testing.assert_array_equal(gradient, grad(weighted_product)(x, y))


def test_elementwise_grad_is_the_diagonal_of_the_jacobian(rng) -> None:
    x = rng.standard_normal((2, 3))
    computed = elementwise_grad(anp.tanh)(x)
    assert computed.shape == x.shape
    np.testing.assert_allclose(computed, 1.0 - np.tanh(x) ** 2, rtol=1e-13)


def test_jacobian_has_output_shape_then_input_shape(rng) -> None:
    x = rng.standard_normal((2, 3))
    weights = rng.standard_normal((4, 3))

    def fun(m):
        return anp.tanh(anp.dot(m, weights.T))

    computed = jacobian(fun)(x)
    assert computed.shape == (2, 4, 2, 3)
    np.testing.assert_allclose(computed, numerical_jacobian(fun, [x], 0), rtol=1e-7, atol=1e-9)


def test_jacobian_of_a_scalar_function_has_the_input_shape(rng) -> None:
    x = rng.standard_normal(3)
    np.testing.assert_allclose(jacobian(lambda v: anp.sum(v**2))(x), 2 * x, rtol=1e-14)


def test_hessian_and_hessian_vector_product_agree(rng) -> None:
    x, v = rng.standard_normal(4), rng.standard_normal(4)

    def fun(p):
        return anp.sum(anp.exp(p) * p[::-1])

    full = hessian(fun)(x)
    assert full.shape == (4, 4)
    np.testing.assert_allclose(hessian_vector_product(fun)(x, v), full @ v, rtol=1e-12, atol=1e-12)


def test_make_vjp_traces_once_and_serves_many_cotangents(rng) -> None:
    x = rng.standard_normal(3)

    def fun(v):
        return anp.outer(v, v)

    vjp, value = make_vjp(fun)(x)
    np.testing.assert_array_equal(value, np.outer(x, x))
    for _ in range(3):
        cotangent = rng.standard_normal((3, 3))
        np.testing.assert_allclose(
            vjp(cotangent), numerical_vjp(fun, [x], 0, cotangent), rtol=1e-8, atol=1e-10
        )


def test_make_jvp_returns_value_and_directional_derivative(rng) -> None:
    x, tangent = rng.standard_normal(3), rng.standard_normal(3)
    value, computed = make_jvp(anp.sin)(x)(tangent)
    np.testing.assert_array_equal(value, np.sin(x))
    np.testing.assert_allclose(computed, directional_derivative(anp.sin, [x], 0, tangent), rtol=1e-9)


def test_make_jvp_and_make_vjp_take_argnum(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    tangent = rng.standard_normal(3)
    _, forward = make_jvp(lambda a, b: a * anp.exp(b), 1)(x, y)(tangent)
    vjp, _ = make_vjp(lambda a, b: a * anp.exp(b), 1)(x, y)
    np.testing.assert_allclose(forward, x * np.exp(y) * tangent, rtol=1e-14)
    np.testing.assert_allclose(vjp(tangent), x * np.exp(y) * tangent, rtol=1e-14)


def test_holomorphic_grad_of_a_polynomial() -> None:
    z = 0.3 + 1.2j
    np.testing.assert_allclose(holomorphic_grad(lambda w: w**3 + 2.0 * w)(z), 3 * z**2 + 2.0, rtol=1e-14)
