"""`ad_core.stop_gradient` and `ad_core.custom_vjp` (defined in `ad_core.differential_operators`):
a constant the operators do not see through, and a primitive declared with its own VJP. Where
the custom rule is the derivative, it is checked against central differences, shape first."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import ad_core
import ad_core.numpy as anp
from ad_core import custom_vjp, grad, make_jvp, make_vjp, stop_gradient

from ._oracle import numerical_grad


def _sigmoid(x):
    return 1.0 / (1.0 + anp.exp(-x))


@custom_vjp
def stable_softplus(x):
    return anp.logaddexp(0.0, x)


stable_softplus.defvjp(lambda ans, x: lambda g: g * _sigmoid(x))


@custom_vjp
def clip_cotangent(x, bound):
    return x


clip_cotangent.defvjp(lambda ans, x, bound: lambda g: anp.clip(g, -bound, bound), None)


def test_stop_gradient_returns_its_argument_and_zero_derivatives(rng) -> None:
    x = rng.standard_normal((2, 3))
    assert stop_gradient(x) is x
    gradient = grad(lambda v: anp.sum(v * stop_gradient(v)))(x)
    assert gradient.shape == x.shape
    np.testing.assert_array_equal(gradient, x)  # only the unstopped factor is differentiated
    value, tangent = make_jvp(lambda v: anp.sum(stop_gradient(v) ** 2))(x)(np.ones_like(x))
    assert value == pytest.approx(np.sum(x**2)) and tangent == 0.0


def test_stop_gradient_of_the_only_path_gives_zeros_of_the_input_shape(rng) -> None:
    x = rng.standard_normal(4)
    vjp, _ = make_vjp(lambda v: anp.sin(stop_gradient(v)))(x)
    contribution = vjp(np.ones(4))
    assert contribution.shape == (4,)
    np.testing.assert_array_equal(contribution, np.zeros(4))


def test_stop_gradient_stops_every_level_of_a_nested_derivative() -> None:
    # d/dx of x * stop(x)**2 is stop(x)**2 at every order: the second derivative is zero,
    # where it would be 6x without the stop.
    f = lambda x: x * stop_gradient(x) ** 2  # noqa: E731
    assert grad(f)(1.5) == pytest.approx(2.25)
    assert grad(grad(f))(1.5) == 0.0


def test_stop_gradient_is_exported_and_its_docstring_example_runs() -> None:
    assert ad_core.stop_gradient is stop_gradient and "stop_gradient" in ad_core.__all__
    assert stop_gradient.__name__ == "stop_gradient"
    # The wrapper's globals are the tracer's, so the module doctest does not find this example.
    example = doctest.DocTestParser().get_doctest(stop_gradient.__doc__, {}, "stop_gradient", None, 0)
    assert len(example.examples) == 2
    result = doctest.DocTestRunner().run(example)
    assert result.failed == 0


def test_custom_vjp_rule_matches_central_differences(rng) -> None:
    x = rng.standard_normal(5) * 3.0
    gradient = grad(lambda v: anp.sum(stable_softplus(v)))(x)
    assert gradient.shape == (5,)
    expected = numerical_grad(lambda v: np.sum(np.logaddexp(0.0, v)), [x])
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)


def test_custom_vjp_replaces_the_derivative_of_the_body() -> None:
    # Through the naive body log1p(exp(x)) at large x, the chain rule multiplies log1p's VJP,
    # 1 / (1 + inf) = 0, by exp's, inf: not-a-number. The declared rule gives sigmoid(x) = 1.
    naive = lambda x: anp.log1p(anp.exp(x))  # noqa: E731
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(grad(naive)(1000.0))
    assert grad(stable_softplus)(1000.0) == 1.0


def test_custom_vjp_differentiates_twice_through_the_rule(rng) -> None:
    x = rng.standard_normal()
    second = grad(grad(stable_softplus))(x)
    sigmoid = 1.0 / (1.0 + np.exp(-x))
    assert second == pytest.approx(sigmoid * (1.0 - sigmoid), rel=1e-12)
    expected = numerical_grad(lambda v: 1.0 / (1.0 + np.exp(-v)), [x])
    assert second == pytest.approx(expected, rel=1e-6)


def test_custom_vjp_none_maker_gives_a_zero_contribution(rng) -> None:
    g = rng.standard_normal(3) * 4.0
    vjp, value = make_vjp(clip_cotangent, argnum=(0, 1))(np.ones(3), 1.0)
    dx, dbound = vjp(g)
    assert dx.shape == (3,) and np.shape(dbound) == ()
    np.testing.assert_array_equal(dx, np.clip(g, -1.0, 1.0))
    assert dbound == 0.0
    np.testing.assert_array_equal(value, np.ones(3))


def test_custom_vjp_returns_the_primitive_it_declares() -> None:
    @custom_vjp
    def double(x):
        return 2.0 * x

    assert double.is_primitive and double.defvjp(lambda ans, x: lambda g: 3.0 * g) is double
    assert grad(double)(1.0) == 3.0  # the declared rule, not the derivative of the body
    with pytest.raises(NotImplementedError):
        make_jvp(double)(1.0)(1.0)  # reverse mode only, as the docstring says
