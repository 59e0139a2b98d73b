"""`ad_core.scipy.special`: every function and differentiable argument against finite
differences (both modes, second order), broadcasting binary functions over several shape pairs
(shape first, then values), HIPS/autograd 1.9.1 as an oracle where its rules exist and are
right, logsumexp (axes, keepdims, weights, signs, large inputs), and what raises without a rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import autograd
import autograd.numpy as agnp
import autograd.scipy.special as agsp
import numpy as np
import pytest
import scipy.special

import ad_core
import ad_core.numpy as anp
import ad_core.scipy.special as sp
from ad_core.test_util import check_grads

from ._autograd_pairs import (
    Case,
    cases_per_argument,
    check_against_finite_differences,
    check_forward_mode_equals_autograd_jacobian,
    check_gradient_equals_autograd,
    check_hessian_vector_product_equals_autograd,
)
from ._oracle import (
    SHAPE_PAIRS,
    allow_constant_derivatives,
    assert_same_shape,
    check_both_modes,
    numerical_grad,
    pair_id,
)

AUTOGRAD_RTOL = 1e-12


def uniform(low: float, high: float, shape: tuple[int, ...] = (3,)) -> Callable[[np.random.Generator], Any]:
    return lambda rng: rng.uniform(low, high, size=shape)


def fixed(value: Any) -> Callable[[np.random.Generator], Any]:
    return lambda rng: value


def either_sign(low: float, high: float) -> Callable[[np.random.Generator], Any]:
    """Magnitudes in [low, high], signs alternating: away from 0 where a function is not smooth."""
    return lambda rng: rng.uniform(low, high, size=4) * np.array([1.0, -1.0, 1.0, -1.0])


SPECIAL = {anp: sp, agnp: agsp, np: scipy.special}


def special_cases(
    name: str, inputs: tuple[Callable[[np.random.Generator], Any], ...], argnums: tuple[int, ...],
    autograd: bool = True,
) -> list[Case]:
    """The harness's cases for `scipy.special.<name>` (the name may carry a suffix after "-"):
    one per argument in `argnums`, the arguments drawn once by `inputs` from seed 0.
    `autograd`: HIPS/autograd 1.9.1's rule for these arguments exists and is right."""
    rng = np.random.default_rng(0)
    args = [make(rng) for make in inputs]
    function = name.split("-")[0]
    return cases_per_argument(
        name, lambda xp: getattr(SPECIAL[xp], function), args, argnums, argnums if autograd else ()
    )


CASES = [
    *special_cases("gamma", (uniform(0.5, 3.0),), (0,)),
    *special_cases("gammaln", (fixed(np.array([0.4, 2.5, -1.5, -0.3])),), (0,)),
    *special_cases("rgamma", (fixed(np.array([0.4, 2.5, -1.5, -0.3])),), (0,)),
    *special_cases("psi", (uniform(0.5, 3.0),), (0,)),
    *special_cases("digamma", (uniform(0.5, 3.0),), (0,)),
    *special_cases("polygamma", (fixed(2), uniform(0.5, 3.0)), (1,)),
    *special_cases("multigammaln", (uniform(2.0, 4.0), fixed(3)), (0,)),
    *special_cases("gammainc", (uniform(0.5, 3.0), uniform(0.5, 3.0)), (1,)),
    *special_cases("gammaincc", (uniform(0.5, 3.0), uniform(0.5, 3.0)), (1,)),
    *special_cases("beta", (uniform(0.5, 3.0), uniform(0.5, 3.0)), (0, 1)),
    *special_cases("betaln", (uniform(0.5, 3.0), uniform(0.5, 3.0)), (0, 1)),
    *special_cases("betainc", (uniform(0.5, 3.0), uniform(0.5, 3.0), uniform(0.1, 0.9)), (2,)),
    *special_cases("j0", (uniform(0.5, 5.0),), (0,)),
    *special_cases("y0", (uniform(0.5, 5.0),), (0,)),
    *special_cases("j1", (uniform(0.5, 5.0),), (0,)),
    *special_cases("y1", (uniform(0.5, 5.0),), (0,)),
    *special_cases("jn", (fixed(3), uniform(0.5, 5.0)), (1,)),
    *special_cases("yn", (fixed(2), uniform(0.5, 5.0)), (1,)),
    *special_cases("i0", (either_sign(0.5, 3.0),), (0,)),
    *special_cases("i1", (either_sign(0.5, 3.0),), (0,)),
    *special_cases("iv", (fixed(1.5), uniform(0.5, 3.0)), (1,)),
    *special_cases("ive", (fixed(2.0), either_sign(0.5, 3.0)), (1,)),
    *special_cases("ive-fractional-order", (fixed(0.7), uniform(0.5, 3.0)), (1,)),
    *special_cases("erf", (uniform(-2.0, 2.0),), (0,)),
    *special_cases("erfc", (uniform(-2.0, 2.0),), (0,)),
    *special_cases("erfinv", (uniform(-0.9, 0.9),), (0,)),
    *special_cases("erfcinv", (uniform(0.1, 1.9),), (0,)),
    *special_cases("logit", (uniform(0.1, 0.9),), (0,)),
    *special_cases("expit", (uniform(-3.0, 3.0),), (0,)),
    # Not in autograd 1.9.1: finite differences only.
    *special_cases("ndtr", (uniform(-3.0, 3.0),), (0,), autograd=False),
    *special_cases("log_ndtr", (uniform(-3.0, 3.0),), (0,), autograd=False),
    *special_cases("stdtr", (fixed(3.5), uniform(-3.0, 3.0)), (1,), autograd=False),
    *special_cases("xlogy", (uniform(-2.0, 2.0), uniform(0.5, 3.0)), (0, 1), autograd=False),
    *special_cases("xlog1py", (uniform(-2.0, 2.0), uniform(-0.5, 2.0)), (0, 1), autograd=False),
]
AUTOGRAD_CASES = [case for case in CASES if case.autograd]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_special_value_is_scipys(case: Case, rng) -> None:
    x = case.make_input(rng)
    np.testing.assert_array_equal(case.build(anp)(x), case.build(np)(x))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_special_rule_passes_check_grads_to_second_order(case: Case, rng) -> None:
    check_against_finite_differences(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_special_gradient_equals_autograd(case: Case, rng) -> None:
    check_gradient_equals_autograd(case, rng, rtol=AUTOGRAD_RTOL, atol=0)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_special_forward_mode_equals_autograd_jacobian(case: Case, rng) -> None:
    """autograd 1.9.1 has no forward-mode rules for scipy.special: its reverse-mode Jacobian,
    applied to the tangent, is the reference."""
    check_forward_mode_equals_autograd_jacobian(case, rng, rtol=AUTOGRAD_RTOL, atol=0)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_special_hessian_vector_product_equals_autograd(case: Case, rng) -> None:
    check_hessian_vector_product_equals_autograd(case, rng, rtol=1e-11, atol=1e-13)


@allow_constant_derivatives
def test_gammasgn_is_locally_constant():
    x = np.array([0.5, 2.5, -1.5, -0.3])
    for mode_derivative in (
        ad_core.grad(lambda v: anp.sum(sp.gammasgn(v) * v)),
        lambda v: ad_core.make_jvp(lambda w: sp.gammasgn(w) * w)(v)(np.ones(4))[1],
    ):
        np.testing.assert_array_equal(mode_derivative(x), scipy.special.gammasgn(x))


# =============================================================================================
# Broadcasting binary functions: each argument gets a cotangent of its own shape
# =============================================================================================

BROADCAST_PAIRS = [pair for pair in SHAPE_PAIRS if pair in {
    ((), (3, 4)), ((4,), (3, 4)), ((3, 1), (1, 4)), ((3, 4), (2, 1, 4)), ((2, 3, 4), (3, 1)), ((1, 4), ()),
}]

BROADCAST_FUNCTIONS = {
    "beta": (lambda a, b: sp.beta(a, b), (0, 1)),
    "betaln": (lambda a, b: sp.betaln(a, b), (0, 1)),
    "gammainc": (lambda a, x: sp.gammainc(a, x), (1,)),
    "gammaincc": (lambda a, x: sp.gammaincc(a, x), (1,)),
    "betainc-a-and-x": (lambda a, x: sp.betainc(a, 2.5, x / 4.0), (1,)),
    "xlogy": (lambda x, y: sp.xlogy(x, y), (0, 1)),
    "polygamma-x": (lambda x, y: sp.polygamma(1, x * y), (0, 1)),
}


def _broadcast_sample(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    values = rng.uniform(0.6, 2.5, size=shape)
    return values.item() if shape == () else values


@pytest.mark.parametrize("pair", BROADCAST_PAIRS, ids=pair_id)
@pytest.mark.parametrize("name", sorted(BROADCAST_FUNCTIONS))
def test_special_broadcasting_gradient_shapes_and_values(name, pair):
    fun, argnums = BROADCAST_FUNCTIONS[name]
    rng = np.random.default_rng(4)
    args = [_broadcast_sample(rng, shape) for shape in pair]
    output_shape = np.broadcast_shapes(*pair)
    for argnum in argnums:
        vjp, _ = ad_core.make_vjp(fun, argnum)(*args)
        assert_same_shape(vjp(np.ones(output_shape)), pair[argnum], f"{name} VJP wrt {argnum}")
        _, tangent = ad_core.make_jvp(fun, argnum)(*args)(np.ones(pair[argnum]) if pair[argnum] else 1.0)
        assert_same_shape(tangent, output_shape, f"{name} JVP wrt {argnum}")
    check_both_modes(fun, args, rng, argnums=argnums)


# =============================================================================================
# logsumexp
# =============================================================================================

LOGSUMEXP_VARIANTS = [
    {},
    {"axis": 0},
    {"axis": -1, "keepdims": True},
    {"axis": (0, 2)},
    {"axis": (1, 2), "keepdims": True},
    {"axis": None, "keepdims": True},
]


def _variant_id(kwargs: dict) -> str:
    return "-".join(f"{key}={value}" for key, value in kwargs.items()) or "defaults"


@pytest.mark.parametrize("kwargs", LOGSUMEXP_VARIANTS, ids=_variant_id)
def test_logsumexp_axes_and_keepdims(kwargs):
    a = np.random.default_rng(5).standard_normal((2, 3, 4))
    value = sp.logsumexp(a, **kwargs)
    expected = scipy.special.logsumexp(a, **kwargs)
    assert np.shape(value) == np.shape(expected)
    np.testing.assert_allclose(value, expected, rtol=1e-14)
    check_grads(lambda x: sp.logsumexp(x, **kwargs), modes=("fwd", "rev"), order=2)(a)


@pytest.mark.parametrize("kwargs", LOGSUMEXP_VARIANTS, ids=_variant_id)
def test_logsumexp_gradient_equals_autograd(kwargs):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 3, 4))
    weights = rng.standard_normal(np.shape(scipy.special.logsumexp(a, **kwargs)))
    computed = ad_core.grad(lambda x: anp.sum(weights * sp.logsumexp(x, **kwargs)))(a)
    expected = autograd.grad(lambda x: agnp.sum(weights * agsp.logsumexp(x, **kwargs)))(a)
    np.testing.assert_allclose(computed, expected, rtol=AUTOGRAD_RTOL, atol=1e-15)


def test_logsumexp_is_stable_for_large_inputs():
    """exp(1000) overflows; the value and both modes' derivatives must not."""
    a = np.array([[1000.0, 1000.0, 999.0], [-1000.0, 0.0, 1000.0]])
    value = sp.logsumexp(a, axis=1)
    shifted = a - a.max(axis=1, keepdims=True)
    softmax = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(value, a.max(axis=1) + np.log(np.exp(shifted).sum(axis=1)), rtol=1e-15)
    gradient = ad_core.grad(lambda x: anp.sum(sp.logsumexp(x, axis=1)))(a)
    assert np.all(np.isfinite(gradient))
    # exp(a - lse) with lse near 1000: a - lse is exact to about 1e-13 absolute, no better.
    np.testing.assert_allclose(gradient, softmax, rtol=1e-12, atol=1e-300)
    _, tangent = ad_core.make_jvp(lambda x: sp.logsumexp(x, axis=1))(a)(np.ones_like(a))
    np.testing.assert_allclose(tangent, [1.0, 1.0], rtol=1e-12)
    hvp = ad_core.hessian_vector_product(lambda x: sp.logsumexp(x[0]))(a, np.ones_like(a))
    assert np.all(np.isfinite(hvp))
    check_grads(lambda x: sp.logsumexp(x, axis=1), modes=("fwd", "rev"), order=2)(a)


WEIGHT_SHAPES = [((3, 4), (3, 4), None), ((3, 4), (4,), 1), ((4,), (3, 4), 0), ((3, 1), (1, 4), (0, 1))]


@pytest.mark.parametrize(("a_shape", "b_shape", "axis"), WEIGHT_SHAPES, ids=str)
def test_logsumexp_weights_in_both_arguments(a_shape, b_shape, axis):
    """autograd 1.9.1 differentiates only `a` (its `b` is a keyword it never traces): the
    derivative in `b` is checked against finite differences only."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal(a_shape)
    b = rng.uniform(0.2, 2.0, b_shape)
    np.testing.assert_allclose(sp.logsumexp(a, axis=axis, b=b),
                               scipy.special.logsumexp(a, axis=axis, b=b), rtol=1e-14)
    fun = lambda x, w: sp.logsumexp(x, axis=axis, b=w)  # noqa: E731
    for argnum, shape in ((0, a_shape), (1, b_shape)):
        vjp, value = ad_core.make_vjp(fun, argnum)(a, b)
        assert_same_shape(vjp(np.ones(np.shape(value))), shape, f"logsumexp VJP wrt {argnum}")
    check_both_modes(fun, [a, b], rng)
    check_grads(fun, modes=("fwd", "rev"), order=2)(a, b)


def test_logsumexp_weighted_gradient_in_a_equals_autograd():
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((3, 4)), rng.uniform(0.2, 2.0, (3, 4))
    computed = ad_core.grad(lambda x: anp.sum(sp.logsumexp(x, axis=0, b=b)))(a)
    expected = autograd.grad(lambda x: agnp.sum(agsp.logsumexp(x, axis=0, b=b)))(a)
    np.testing.assert_allclose(computed, expected, rtol=AUTOGRAD_RTOL)


def test_logsumexp_negative_weights_and_return_sign():
    """A negative sum: log|s| and its sign, as SciPy returns them; the derivative of log|s|
    carries the sign (checked against finite differences: autograd 1.9.1 cannot trace a
    function returning a tuple)."""
    a = np.array([0.5, 1.5, -0.2])
    b = np.array([1.0, -2.0, 0.5])
    value, sign = sp.logsumexp(a, b=b, return_sign=True)
    expected_value, expected_sign = scipy.special.logsumexp(a, b=b, return_sign=True)
    assert sign == expected_sign == -1.0
    np.testing.assert_allclose(value, expected_value, rtol=1e-14)
    fun = lambda x, w: sp.logsumexp(x, b=w, return_sign=True)[0]  # noqa: E731
    np.testing.assert_allclose(ad_core.grad(fun)(a, b), numerical_grad(fun, [a, b], 0), rtol=1e-8)
    check_grads(fun, modes=("fwd", "rev"), order=2)(a, b)


def test_logsumexp_python_list_and_scalar_inputs():
    assert sp.logsumexp([1.0, 2.0]) == scipy.special.logsumexp([1.0, 2.0])
    np.testing.assert_allclose(ad_core.grad(lambda x: sp.logsumexp(anp.stack([x, 2.0 * x])))(0.5),
                               (1.0 + 2.0 * np.exp(0.5)) / (1.0 + np.exp(0.5)), rtol=1e-14)


# =============================================================================================
# What raises: arguments without rules fail, naming the function, in both modes
# =============================================================================================

NO_RULE = [
    ("jn", lambda n: sp.jn(n, 1.3), 2.0),
    ("yn", lambda n: sp.yn(n, 1.3), 2.0),
    ("polygamma", lambda n: sp.polygamma(n, 1.3), 1.0),
    ("iv", lambda v: sp.iv(v, 1.3), 1.5),
    ("ive", lambda v: sp.ive(v, 1.3), 1.5),
    ("betainc", lambda a: sp.betainc(a, 2.0, 0.3), 1.5),
    ("betainc", lambda b: sp.betainc(1.5, b, 0.3), 2.0),
    ("gammainc", lambda a: sp.gammainc(a, 0.7), 1.5),
    ("gammaincc", lambda a: sp.gammaincc(a, 0.7), 1.5),
    ("stdtr", lambda df: sp.stdtr(df, 0.7), 3.0),
]


NO_RULE_IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(NO_RULE)]


@pytest.mark.parametrize(("name", "fun", "x"), NO_RULE, ids=NO_RULE_IDS)
def test_argument_without_rule_raises_naming_function(name, fun, x):
    with pytest.raises(NotImplementedError, match=rf"\b{name}\b"):
        ad_core.grad(fun)(x)
    with pytest.raises(NotImplementedError, match=rf"\b{name}\b"):
        ad_core.make_jvp(fun)(x)(1.0)


def test_value_computed_when_order_is_not_differentiated():
    """The order is a plain integer here: only x is traced, and that works."""
    assert sp.jn(2, 1.3) == scipy.special.jn(2, 1.3)
    np.testing.assert_allclose(ad_core.grad(lambda x: sp.jn(2, x))(1.3),
                               (scipy.special.jn(1, 1.3) - scipy.special.jn(3, 1.3)) / 2, rtol=1e-15)


def test_log_ndtr_derivative_far_in_the_left_tail():
    """phi / Phi in logarithms: at -40, Phi underflows to 0 in ndtr but the ratio is about 40."""
    x = np.array([-40.0, -10.0, 10.0])
    gradient = ad_core.grad(lambda v: anp.sum(sp.log_ndtr(v)))(x)
    assert np.all(np.isfinite(gradient))
    np.testing.assert_allclose(gradient, numerical_grad(lambda v: np.sum(scipy.special.log_ndtr(v)), [x]),
                               rtol=1e-7, atol=1e-9)
    # At +10, Phi rounds to 1: the derivative is the density itself, far below the FD noise.
    np.testing.assert_allclose(gradient[2], np.exp(-50.0) / np.sqrt(2.0 * np.pi), rtol=1e-12)
