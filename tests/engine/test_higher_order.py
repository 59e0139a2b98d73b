"""Derivatives of derivatives: nested grad, Hessians, Hessian-vector products in both orders."""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import elementwise_grad, grad, hessian, hessian_vector_product, jacobian, make_jvp

from ._oracle import numerical_grad, numerical_jacobian


def rosenbrock_like(x):
    """A non-quadratic test function whose Hessian has off-diagonal terms everywhere."""
    return anp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2) + anp.sum(
        anp.tanh(x) * anp.cos(x[::-1])
    )


def test_second_derivative_of_tanh_matches_closed_form(rng) -> None:
    x = rng.uniform(-2, 2, size=7)
    second = elementwise_grad(elementwise_grad(anp.tanh))(x)
    # d2/dx2 tanh = -2 tanh(x) sech(x)^2
    closed_form = -2.0 * np.tanh(x) / np.cosh(x) ** 2
    np.testing.assert_allclose(second, closed_form, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("x", [-1.5, -0.2, 0.0, 0.7, 2.5])
def test_grad_of_grad_of_tanh_on_scalars(x: float) -> None:
    closed_form = -2.0 * np.tanh(x) / np.cosh(x) ** 2
    np.testing.assert_allclose(grad(grad(anp.tanh))(x), closed_form, rtol=1e-12, atol=1e-14)


def test_third_derivative_of_tanh_matches_closed_form() -> None:
    x = 0.4
    sech2 = 1.0 / np.cosh(x) ** 2
    closed_form = -2.0 * sech2**2 + 4.0 * np.tanh(x) ** 2 * sech2
    np.testing.assert_allclose(grad(grad(grad(anp.tanh)))(x), closed_form, rtol=1e-12)


def test_hessian_matches_finite_differences_of_the_gradient(rng) -> None:
    x = rng.uniform(-1, 1, size=5)
    computed = hessian(rosenbrock_like)(x)
    assert computed.shape == (5, 5)
    gradient = grad(rosenbrock_like)
    np.testing.assert_allclose(computed, numerical_jacobian(gradient, [x], 0), rtol=1e-7, atol=1e-6)
    # Independent of the engine entirely: differences of differences of the plain function.
    np.testing.assert_allclose(
        computed,
        numerical_jacobian(lambda v: numerical_grad(rosenbrock_like, [v]), [x], 0),
        rtol=1e-5,
        atol=1e-3,
    )
    np.testing.assert_allclose(computed, computed.T, rtol=1e-12, atol=1e-10)


def test_hessian_of_matrix_input_has_doubled_shape(rng) -> None:
    x = rng.standard_normal((2, 3))
    computed = hessian(lambda m: anp.sum(anp.sin(m) * m))(x)
    assert computed.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(
        computed, numerical_jacobian(grad(lambda m: anp.sum(anp.sin(m) * m)), [x], 0), rtol=1e-7, atol=1e-8
    )


def test_hessian_vector_product_agrees_with_every_other_route(rng) -> None:
    x = rng.uniform(-1, 1, size=6)
    v = rng.standard_normal(6)
    from_operator = hessian_vector_product(rosenbrock_like)(x, v)
    forward_over_reverse = make_jvp(grad(rosenbrock_like))(x)(v)[1]
    reverse_over_reverse = grad(lambda point: anp.dot(grad(rosenbrock_like)(point), v))(x)
    full_hessian_times_v = hessian(rosenbrock_like)(x) @ v
    finite_difference = numerical_jacobian(grad(rosenbrock_like), [x], 0) @ v
    assert from_operator.shape == x.shape
    np.testing.assert_allclose(from_operator, forward_over_reverse, rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(from_operator, reverse_over_reverse, rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(from_operator, full_hessian_times_v, rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(from_operator, finite_difference, rtol=1e-7, atol=1e-6)


def test_jacobian_of_gradient_equals_hessian(rng) -> None:
    x = rng.standard_normal(4)

    def fun(v):
        return anp.sum(anp.exp(v) * v[::-1]) + anp.prod(v) ** 2

    np.testing.assert_allclose(jacobian(grad(fun))(x), hessian(fun)(x), rtol=1e-12, atol=1e-12)


def test_forward_over_forward_second_derivative(rng) -> None:
    x = float(rng.uniform(-1, 1))

    def first(point):
        return make_jvp(anp.sin)(point)(1.0)[1]

    second = make_jvp(first)(x)(1.0)[1]
    np.testing.assert_allclose(second, -np.sin(x), rtol=1e-12)


def test_reverse_over_forward_second_derivative(rng) -> None:
    x = float(rng.uniform(-1, 1))

    def first(point):
        return make_jvp(lambda t: t**3 * anp.exp(t))(point)(1.0)[1]

    expected = (6 * x + 6 * x**2 + x**3) * np.exp(x)
    np.testing.assert_allclose(grad(first)(x), expected, rtol=1e-12)


@pytest.mark.parametrize("outer_first", [True, False], ids=["outer-box-first", "inner-box-first"])
def test_primitive_with_boxes_of_two_traces_records_on_both(outer_first: bool) -> None:
    """d/dx [d/dy (x * y**2)] = 2y: one multiply sees a box of the outer trace (x) and one of
    the inner trace (y**2), in either argument order, and must be recorded by both traces."""

    def mixed(x: float, y: float) -> object:
        return x * y**2 if outer_first else y**2 * x

    def inner_derivative(x: float) -> object:
        return grad(lambda y: mixed(x, y))(1.5)

    assert np.isclose(inner_derivative(0.7), 2 * 0.7 * 1.5)
    assert np.isclose(grad(inner_derivative)(0.7), 2 * 1.5)
    assert np.isclose(grad(grad(lambda y: mixed(0.7, y)))(1.5), 2 * 0.7)
