"""Binary elementwise rules over every pair of broadcast-compatible shapes.

For each pair the gradient must come back in the input's own shape (broadcasting in the forward
pass means summing in the backward pass), and its values must match finite differences.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, make_jvp
from ad_core.test_util import check_grads

from ._oracle import SHAPE_PAIRS, allow_constant_derivatives, check_both_modes, pair_id, tie_free, uniform

Sampler = Callable[[np.random.Generator, tuple[int, ...]], Any]


def within(low: float, high: float) -> Sampler:
    return lambda rng, shape: uniform(rng, shape, low, high)


def grid(parity: int) -> Sampler:
    return lambda rng, shape: tie_free(rng, shape, parity)


class BinaryRule(NamedTuple):
    name: str
    fun: Callable[[Any, Any], Any]
    sample_first: Sampler
    sample_second: Sampler


BINARY_RULES = [
    BinaryRule("add-operator", operator.add, within(-2, 2), within(-2, 2)),
    BinaryRule("subtract-operator", operator.sub, within(-2, 2), within(-2, 2)),
    BinaryRule("multiply-operator", operator.mul, within(-2, 2), within(-2, 2)),
    BinaryRule("divide-operator", operator.truediv, within(-2, 2), within(0.5, 2)),
    # A positive base keeps x ** y real for every real exponent.
    BinaryRule("power-operator", operator.pow, within(0.5, 2), within(-2, 2)),
    # x / y stays inside (3, 4): floor(x / y) is constant near every sample, so mod is smooth.
    BinaryRule("mod", anp.mod, within(3.2, 3.8), within(1.0, 1.05)),
    BinaryRule("mod-operator", operator.mod, within(3.2, 3.8), within(1.0, 1.05)),
    BinaryRule("arctan2", anp.arctan2, within(-2, 2), within(0.5, 2)),
    BinaryRule("arctan2-left-half-plane", anp.arctan2, within(0.5, 2), within(-2, -0.5)),
    BinaryRule("logaddexp", anp.logaddexp, within(-2, 2), within(-2, 2)),
    BinaryRule("maximum", anp.maximum, grid(0), grid(1)),
    BinaryRule("minimum", anp.minimum, grid(0), grid(1)),
]

NAMED_FUNCTION_RULES = [
    BinaryRule("add", anp.add, within(-2, 2), within(-2, 2)),
    BinaryRule("subtract", anp.subtract, within(-2, 2), within(-2, 2)),
    BinaryRule("multiply", anp.multiply, within(-2, 2), within(-2, 2)),
    BinaryRule("divide", anp.divide, within(-2, 2), within(0.5, 2)),
    BinaryRule("true_divide", anp.true_divide, within(-2, 2), within(0.5, 2)),
    BinaryRule("power", anp.power, within(0.5, 2), within(-2, 2)),
]
A_FEW_PAIRS = [((), (3, 4)), ((3, 1), (1, 4)), ((2, 1, 4), (3, 1))]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=pair_id)
@pytest.mark.parametrize("rule", BINARY_RULES, ids=lambda rule: rule.name)
def test_binary_rule_matches_finite_differences(rule: BinaryRule, shapes, rng) -> None:
    first_shape, second_shape = shapes
    args = [rule.sample_first(rng, first_shape), rule.sample_second(rng, second_shape)]
    check_both_modes(rule.fun, args, rng)


@pytest.mark.parametrize("shapes", A_FEW_PAIRS, ids=pair_id)
@pytest.mark.parametrize("rule", NAMED_FUNCTION_RULES, ids=lambda rule: rule.name)
def test_named_binary_function_matches_finite_differences(rule: BinaryRule, shapes, rng) -> None:
    first_shape, second_shape = shapes
    args = [rule.sample_first(rng, first_shape), rule.sample_second(rng, second_shape)]
    check_both_modes(rule.fun, args, rng)


@pytest.mark.parametrize("shapes", A_FEW_PAIRS, ids=pair_id)
@pytest.mark.parametrize("rule", BINARY_RULES, ids=lambda rule: rule.name)
@allow_constant_derivatives
def test_binary_rule_passes_check_grads_to_second_order(rule: BinaryRule, shapes, rng) -> None:
    first_shape, second_shape = shapes
    first, second = rule.sample_first(rng, first_shape), rule.sample_second(rng, second_shape)
    check_grads(rule.fun, argnum=0, modes=("fwd", "rev"), order=2)(first, second)
    check_grads(rule.fun, argnum=1, modes=("fwd", "rev"), order=2)(first, second)


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=pair_id)
def test_where_routes_gradient_to_the_chosen_branch(shapes, rng) -> None:
    first_shape, second_shape = shapes
    output_shape = np.broadcast_shapes(first_shape, second_shape)
    condition = rng.random(output_shape) < 0.5
    args = [uniform(rng, first_shape, -2, 2), uniform(rng, second_shape, -2, 2)]
    check_both_modes(lambda x, y: anp.where(condition, x, y), args, rng)


@allow_constant_derivatives
def test_where_passes_check_grads(rng) -> None:
    condition = rng.random((3, 4)) < 0.5
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((1, 4))
    for argnum in (0, 1):
        check_grads(lambda a, b: anp.where(condition, a * b, a - b), argnum=argnum, order=2)(x, y)


# Ties. The engine follows HIPS/autograd: where x == y, maximum and minimum split the incoming
# cotangent equally between the two arguments (0.5 each), so the two partials still sum to the
# derivative of the common value. Forward mode averages the two tangents the same way.
@pytest.mark.parametrize("function", [anp.maximum, anp.minimum], ids=["maximum", "minimum"])
def test_tie_splits_the_gradient_equally(function) -> None:
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.0, 0.0, 5.0])  # a tie at index 0 only
    d_dx = grad(lambda a, b: anp.sum(function(a, b)), argnum=0)(x, y)
    d_dy = grad(lambda a, b: anp.sum(function(a, b)), argnum=1)(x, y)
    x_wins = x > y if function is anp.maximum else x < y
    expected_x = np.where(x == y, 0.5, x_wins.astype(float))
    np.testing.assert_array_equal(d_dx, expected_x)
    np.testing.assert_array_equal(d_dx + d_dy, np.ones(3))


@pytest.mark.parametrize("function", [anp.maximum, anp.minimum], ids=["maximum", "minimum"])
def test_tie_averages_the_tangents_in_forward_mode(function) -> None:
    x, y = 1.0, 1.0
    _, tangent_x = make_jvp(function, 0)(x, y)(1.0)
    _, tangent_y = make_jvp(function, 1)(x, y)(1.0)
    assert tangent_x == 0.5
    assert tangent_y == 0.5


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_power_by_a_python_number_keeps_a_low_precision_gradient(dtype, rng) -> None:
    # The base's rule formed `x ** where(y, y - 1, 1.0)`, a float64 0-d exponent that promoted
    # the gradient of a float32 (or float16) array to float64.
    x = rng.standard_normal((3, 2)).astype(dtype)
    for exponent in (2, 3.0, 0):
        gradient = grad(lambda v, e=exponent: anp.sum(v**e))(x)
        assert gradient.shape == x.shape
        assert gradient.dtype == dtype
        expected = exponent * x.astype(np.float64) ** (exponent - 1 if exponent else 1.0)
        np.testing.assert_allclose(gradient, expected, rtol=1e-2 if dtype == np.float16 else 1e-6)
        _, tangent = make_jvp(lambda v, e=exponent: v**e)(x)(np.ones_like(x))
        assert tangent.dtype == dtype
