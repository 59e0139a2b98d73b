"""Every unary elementwise rule, in reverse and forward mode, against finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad
from ad_core.test_util import check_grads

from ._oracle import (
    BROADCAST_SHAPES,
    allow_constant_derivatives,
    check_both_modes,
    shape_id,
    tie_free,
    uniform,
)

Sampler = Callable[[np.random.Generator, tuple[int, ...]], Any]


def within(low: float, high: float) -> Sampler:
    return lambda rng, shape: uniform(rng, shape, low, high)


def away_from_zero(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    """Magnitudes in [0.5, 2] with random signs: both branches of abs/sign/reciprocal, no kink."""
    magnitudes = rng.uniform(0.5, 2.0, size=shape)
    signs = rng.choice([-1.0, 1.0], size=shape)
    values = magnitudes * signs
    return values.item() if values.ndim == 0 else values


class UnaryRule(NamedTuple):
    name: str
    fun: Callable[[Any], Any]
    sample: Sampler


UNARY_RULES = [
    UnaryRule("negative", anp.negative, within(-2, 2)),
    UnaryRule("neg-operator", lambda x: -x, within(-2, 2)),
    UnaryRule("exp", anp.exp, within(-2, 2)),
    UnaryRule("exp2", anp.exp2, within(-2, 2)),
    UnaryRule("log", anp.log, within(0.5, 2)),
    UnaryRule("log2", anp.log2, within(0.5, 2)),
    UnaryRule("log10", anp.log10, within(0.5, 2)),
    UnaryRule("log1p", anp.log1p, within(-0.5, 2)),
    UnaryRule("expm1", anp.expm1, within(-2, 2)),
    UnaryRule("sqrt", anp.sqrt, within(0.5, 2)),
    UnaryRule("square", anp.square, within(-2, 2)),
    UnaryRule("reciprocal", anp.reciprocal, away_from_zero),
    UnaryRule("abs", anp.abs, away_from_zero),
    UnaryRule("absolute", anp.absolute, away_from_zero),
    UnaryRule("abs-builtin", abs, away_from_zero),
    # sign is piecewise constant: its output does not depend on x, so the engine may warn.
    pytest.param(
        UnaryRule("sign", anp.sign, away_from_zero),
        marks=pytest.mark.filterwarnings("ignore::UserWarning"),
        id="sign",
    ),
    UnaryRule("sin", anp.sin, within(-3, 3)),
    UnaryRule("cos", anp.cos, within(-3, 3)),
    UnaryRule("tan", anp.tan, within(-1.2, 1.2)),
    UnaryRule("arcsin", anp.arcsin, within(-0.8, 0.8)),
    UnaryRule("arccos", anp.arccos, within(-0.8, 0.8)),
    UnaryRule("arctan", anp.arctan, within(-2, 2)),
    UnaryRule("sinh", anp.sinh, within(-2, 2)),
    UnaryRule("cosh", anp.cosh, within(-2, 2)),
    UnaryRule("tanh", anp.tanh, within(-2, 2)),
    UnaryRule("power-cube-operator", lambda x: x**3, within(-2, 2)),
    UnaryRule("power-half-operator", lambda x: x**0.5, within(0.5, 2)),
    UnaryRule("constant-base-power", lambda x: 2.0**x, within(-2, 2)),
    # Found by HIPS/autograd's own test suite: these had no rules at all.
    UnaryRule("degrees", anp.degrees, within(-2, 2)),
    UnaryRule("radians", anp.radians, within(-2, 2)),
    UnaryRule("nan_to_num-finite", anp.nan_to_num, within(-2, 2)),
    UnaryRule("clip-inside-and-outside", lambda x: anp.clip(x, -1.0, 1.0), lambda r, s: tie_free(r, s, 1)),
]
UNARY_SHAPES = BROADCAST_SHAPES


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=shape_id)
@pytest.mark.parametrize("rule", UNARY_RULES, ids=lambda rule: getattr(rule, "name", None))
def test_unary_rule_matches_finite_differences(rule: UnaryRule, shape: tuple[int, ...], rng) -> None:
    check_both_modes(rule.fun, [rule.sample(rng, shape)], rng)


@pytest.mark.parametrize("shape", [(), (3, 4)], ids=shape_id)
@pytest.mark.parametrize("rule", UNARY_RULES, ids=lambda rule: getattr(rule, "name", None))
@allow_constant_derivatives
def test_unary_rule_passes_check_grads_to_second_order(rule: UnaryRule, shape: tuple[int, ...], rng) -> None:
    check_grads(rule.fun, modes=("fwd", "rev"), order=2)(rule.sample(rng, shape))


def test_clip_gradient_is_one_inside_and_zero_outside() -> None:
    x = np.array([-2.0, -0.5, 0.5, 2.0])
    gradient = grad(lambda v: anp.sum(anp.clip(v, -1.0, 1.0)))(x)
    inside = (x > -1.0) & (x < 1.0)
    np.testing.assert_array_equal(gradient, inside.astype(float))


def test_sign_has_zero_gradient_away_from_zero(rng) -> None:
    x = away_from_zero(rng, (5,))
    np.testing.assert_array_equal(grad(lambda v: anp.sum(anp.sign(v) * v))(x), np.sign(x))


def test_nan_to_num_passes_no_gradient_through_replaced_entries() -> None:
    shift = np.array([0.0, np.nan, np.inf, -np.inf])
    gradient = grad(lambda x: anp.sum(anp.sin(anp.nan_to_num(x + shift))))(np.full(4, 0.5))
    assert gradient.shape == (4,)
    np.testing.assert_allclose(gradient, [np.cos(0.5), 0.0, 0.0, 0.0], rtol=1e-12)
