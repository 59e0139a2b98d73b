"""`ad_core.scipy.stats`: values against SciPy, every function and differentiable argument against
finite differences (both modes, second order), HIPS/autograd 1.9.1 as an oracle where its rules
exist and are right, broadcasting, the edges of the supports, multivariate_normal's argument
forms and allow_singular, dirichlet's forms, and what raises without a rule.
"""

from __future__ import annotations

from typing import Any

import autograd.numpy as agnp
import autograd.scipy.stats as agst
import numpy as np
import pytest
import scipy.stats

import ad_core
import ad_core.numpy as anp
import ad_core.scipy.stats as st
from ad_core.scipy.stats import multivariate_normal, norm, poisson
from ad_core.test_util import check_grads

from ._autograd_pairs import (
    Case,
    cases_per_argument,
    check_against_finite_differences,
    check_forward_mode_equals_autograd_jacobian,
    check_gradient_equals_autograd,
)
from ._oracle import assert_same_shape, check_both_modes, directional_derivative, numerical_grad, pair_id

AUTOGRAD_RTOL = 1e-12

X = np.array([-0.7, 0.4, 1.9])
UNIT = np.array([0.15, 0.5, 0.85])
POSITIVE = np.array([0.3, 1.2, 2.6])
COUNTS = np.array([0.0, 1.0, 4.0])
SIMPLEX = np.array([0.2, 0.3, 0.5])
ALPHA = np.array([1.5, 0.8, 3.0])
POINTS = np.array([[0.3, -0.2], [1.1, 0.4], [-0.6, 0.9], [0.0, 0.1]])
MEAN = np.array([0.2, -0.1])
COV = np.array([[1.5, 0.4], [0.4, 0.8]])


STATS = {anp: st, agnp: agst, np: scipy.stats}


def stats_cases(
    name: str, function: str, args: tuple[Any, ...], argnums: tuple[int, ...],
    autograd_argnums: tuple[int, ...] = (),
) -> list[Case]:
    """The harness's cases for `function` ("distribution.function" in ad_core.scipy.stats,
    autograd.scipy.stats and scipy.stats) at `args`: the arguments in `argnums` are checked
    against finite differences, those in `autograd_argnums` (where autograd 1.9.1's rule exists
    and is right) compared with autograd."""
    return cases_per_argument(name, lambda xp: _resolve(STATS[xp], function), args, argnums, autograd_argnums)


def _resolve(module: Any, name: str) -> Any:
    distribution, function = name.split(".")
    return getattr(getattr(module, distribution), function)


CASES = [
    *(case for f in ("pdf", "cdf", "logpdf", "logcdf", "sf", "logsf")
      for case in stats_cases(f"norm.{f}", f"norm.{f}", (X, 0.3, 1.7), (0, 1, 2), (0, 1, 2))),
    *stats_cases("t.pdf", "t.pdf", (X, 3.5, 0.3, 1.7), (0, 1, 2, 3), (0, 1, 2, 3)),
    *stats_cases("t.logpdf", "t.logpdf", (X, 3.5, 0.3, 1.7), (0, 1, 2, 3), (0, 1, 2, 3)),
    # autograd 1.9.1's t.cdf and t.logcdf have rules for x and loc only (for scale it raises,
    # naming the wrong argument: "VJP of cdf wrt argnum 0 not defined").
    *stats_cases("t.cdf", "t.cdf", (X, 3.5, 0.3, 1.7), (0, 2, 3), (0, 2)),
    *stats_cases("t.logcdf", "t.logcdf", (X, 3.5, 0.3, 1.7), (0, 2, 3), (0, 2)),
    *stats_cases("beta.logpdf", "beta.logpdf", (UNIT, 1.5, 2.5), (0, 1, 2), (0, 1, 2)),
    *stats_cases("beta.pdf", "beta.pdf", (UNIT, 1.5, 2.5), (0, 1, 2), (0, 1, 2)),
    # autograd 1.9.1's beta, gamma and chi2 rules take no loc or scale: passing either (as a
    # keyword or positionally) makes its VJP raise TypeError (finite differences only).
    *stats_cases("beta.logpdf-loc-scale", "beta.logpdf", (UNIT, 1.5, 2.5, -0.1, 1.3), (0, 1, 2, 3, 4)),
    *stats_cases("beta.cdf", "beta.cdf", (UNIT, 1.5, 2.5), (0,), (0,)),
    *stats_cases("beta.cdf-loc-scale", "beta.cdf", (UNIT, 1.5, 2.5, -0.1, 1.3), (0, 3, 4)),
    *stats_cases("gamma.logpdf", "gamma.logpdf", (POSITIVE, 2.5), (0, 1), (0, 1)),
    *stats_cases("gamma.pdf", "gamma.pdf", (POSITIVE, 2.5), (0, 1), (0, 1)),
    *stats_cases("gamma.pdf-loc-scale", "gamma.pdf", (POSITIVE, 2.5, -0.2, 1.5), (0, 1, 2, 3)),
    *stats_cases("gamma.cdf", "gamma.cdf", (POSITIVE, 2.5), (0,), (0,)),
    *stats_cases("gamma.cdf-loc-scale", "gamma.cdf", (POSITIVE, 2.5, -0.2, 1.5), (0, 2, 3)),
    # autograd 1.9.1 has no rule for chi2's df.
    *stats_cases("chi2.logpdf", "chi2.logpdf", (POSITIVE, 3.0), (0, 1), (0,)),
    *stats_cases("chi2.pdf", "chi2.pdf", (POSITIVE, 3.0), (0, 1), (0,)),
    # autograd 1.9.1's chi2 logpdf/pdf rule is where(df % 1 == 0, ..., 0): zero for a
    # non-integer df, where the true derivative is not (finite differences only).
    *stats_cases("chi2.logpdf-fractional-df", "chi2.logpdf", (POSITIVE, 3.3), (0, 1)),
    *stats_cases("chi2.pdf-loc-scale", "chi2.pdf", (POSITIVE, 3.3, -0.2, 1.5), (0, 1, 2, 3)),
    *stats_cases("chi2.cdf", "chi2.cdf", (POSITIVE, 3.3), (0,), (0,)),
    *stats_cases("poisson.logpmf", "poisson.logpmf", (COUNTS, 2.2), (1,), (1,)),
    *stats_cases("poisson.pmf", "poisson.pmf", (COUNTS, 2.2), (1,), (1,)),
    *stats_cases("poisson.cdf", "poisson.cdf", (COUNTS + 0.5, 2.2), (1,), (1,)),
    *stats_cases("poisson.logpmf-loc", "poisson.logpmf", (COUNTS + 1.0, 2.2, 1), (1,)),
    # SciPy refuses x off the simplex, so finite differences in x go through the form with the
    # last component left out (1 - the sum of the others); autograd is compared at the full x.
    *stats_cases("dirichlet.logpdf", "dirichlet.logpdf", (SIMPLEX, ALPHA), (1,), (0, 1)),
    *stats_cases("dirichlet.pdf", "dirichlet.pdf", (SIMPLEX, ALPHA), (1,), (0, 1)),
    *stats_cases("dirichlet.logpdf-free-components", "dirichlet.logpdf", (SIMPLEX[:-1], ALPHA), (0, 1)),
    # autograd 1.9.1's dirichlet rules broadcast alpha against the last axis, not the first:
    # they fail for SciPy's (k, n) batches (finite differences only).
    *stats_cases("dirichlet.logpdf-batch", "dirichlet.logpdf",
                 (np.stack([SIMPLEX, SIMPLEX[::-1]], 1)[:-1], ALPHA), (0, 1)),
    *stats_cases("multivariate_normal.logpdf", "multivariate_normal.logpdf", (POINTS, MEAN, COV), (0, 1, 2),
         (0, 1, 2)),
    *stats_cases("multivariate_normal.pdf", "multivariate_normal.pdf", (POINTS, MEAN, COV), (0, 1, 2),
                 (0, 1, 2)),
    *stats_cases("multivariate_normal.logpdf-one-point", "multivariate_normal.logpdf", (POINTS[1], MEAN, COV),
         (0, 1, 2), (0, 1, 2)),
    *stats_cases("multivariate_normal.entropy", "multivariate_normal.entropy", (MEAN, COV), (1,), (1,)),
]

FINITE_DIFFERENCE_CASES = [case for case in CASES if case.finite_differences]
AUTOGRAD_CASES = [case for case in CASES if case.autograd]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_stats_value_is_scipys(case: Case, rng) -> None:
    x = case.make_input(rng)
    computed, expected = case.build(anp)(x), case.build(np)(x)
    assert np.shape(computed) == np.shape(expected)
    np.testing.assert_allclose(computed, expected, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("case", FINITE_DIFFERENCE_CASES, ids=lambda case: case.name)
def test_stats_rule_passes_check_grads_to_second_order(case: Case, rng) -> None:
    check_against_finite_differences(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_stats_gradient_equals_autograd(case: Case, rng) -> None:
    check_gradient_equals_autograd(case, rng, rtol=AUTOGRAD_RTOL, atol=1e-15)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_stats_forward_mode_equals_autograd_jacobian(case: Case, rng) -> None:
    """autograd 1.9.1 has no forward-mode rules for scipy.stats: its reverse-mode Jacobian,
    applied to the tangent, is the reference."""
    check_forward_mode_equals_autograd_jacobian(case, rng, rtol=AUTOGRAD_RTOL, atol=1e-15)


def test_import_forms():
    assert norm.logpdf is st.norm.logpdf
    assert norm.logpdf(0.5, loc=0.0, scale=2.0) == pytest.approx(scipy.stats.norm.logpdf(0.5, 0.0, 2.0),
                                                                 rel=1e-14)


def test_keyword_parameters_are_traced():
    """Keywords reach the tracer too (a primitive over SciPy's function would see only the
    positional arguments)."""
    computed = ad_core.grad(lambda s: norm.logpdf(1.0, loc=0.5, scale=s))(2.0)
    expected = ad_core.grad(lambda s: norm.logpdf(1.0, 0.5, s))(2.0)
    assert computed == expected
    np.testing.assert_allclose(computed, -1.0 / 2.0 + 0.25 / 8.0, rtol=1e-14)


# =============================================================================================
# Broadcasting
# =============================================================================================

PAIRS = [((), (3, 4)), ((4,), (3, 4)), ((3, 1), (1, 4)), ((2, 1, 4), (3, 1))]
BROADCAST_FUNCTIONS = {
    "norm.logpdf": lambda x, loc: norm.logpdf(x, loc, 1.3),
    "norm.logcdf": lambda x, scale: norm.logcdf(x, 0.2, scale + 0.5),
    "gamma.logpdf": lambda x, a: st.gamma.logpdf(x, a),
    "t.cdf": lambda x, scale: st.t.cdf(x, 2.5, 0.1, scale),
    "beta.pdf": lambda x, a: st.beta.pdf(x / 3.0, a, 2.0),
}


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("name", sorted(BROADCAST_FUNCTIONS))
def test_stats_broadcasting_gradient_shapes_and_values(name, pair):
    fun = BROADCAST_FUNCTIONS[name]
    rng = np.random.default_rng(3)
    args = [rng.uniform(0.5, 2.5, shape) if shape else 1.1 for shape in pair]
    for argnum in (0, 1):
        vjp, value = ad_core.make_vjp(fun, argnum)(*args)
        assert_same_shape(value, np.broadcast_shapes(*pair), name)
        assert_same_shape(vjp(np.ones(np.shape(value))), pair[argnum], f"{name} VJP wrt {argnum}")
    check_both_modes(fun, args, rng)


# =============================================================================================
# Edges of the supports: SciPy's values, derivative zero outside
# =============================================================================================

OUTSIDE = [
    ("gamma.logpdf", np.array([-1.0, 0.0, 0.0, 0.0]), np.array([2.0, 1.0, 2.0, 0.5])),
    ("chi2.logpdf", np.array([-1.0, 0.0, 0.0]), np.array([3.0, 2.0, 4.0])),
    ("beta.logpdf", np.array([-0.5, 1.5, 0.0, 1.0]), np.array([2.0, 2.0, 1.0, 2.0])),
    ("beta.cdf", np.array([-0.5, 1.5]), np.array([2.0, 2.0])),
    ("gamma.cdf", np.array([-0.5, 0.0]), np.array([2.0, 2.0])),
]


@pytest.mark.parametrize(("name", "x", "shape_parameter"), OUTSIDE, ids=[case[0] for case in OUTSIDE])
def test_edges_of_the_support(name, x, shape_parameter):
    extra = (2.0,) if name.startswith("beta") else ()
    fun = _resolve(st, name)
    np.testing.assert_array_equal(fun(x, shape_parameter, *extra),
                                  _resolve(scipy.stats, name)(x, shape_parameter, *extra))
    outside = (x < 0) | (x > 1) if name.startswith("beta") else x < 0
    # On the boundary (x = 0) some derivatives are infinite, as they are mathematically.
    with np.errstate(divide="ignore", invalid="ignore"):
        gradient = ad_core.grad(lambda v: anp.sum(fun(v, shape_parameter, *extra)))(x)
        np.testing.assert_array_equal(gradient[outside], 0.0)
        if name.endswith("logpdf"):  # the cdfs have no rule in their shape parameters
            parameter_gradient = ad_core.grad(lambda a: anp.sum(fun(x, a, *extra)))(shape_parameter)
            np.testing.assert_array_equal(parameter_gradient[outside], 0.0)


def test_poisson_off_the_support():
    k = np.array([-1.0, 2.5, 0.0, 3.0])
    np.testing.assert_array_equal(poisson.logpmf(k, 2.2), scipy.stats.poisson.logpmf(k, 2.2))
    np.testing.assert_array_equal(poisson.cdf(k, 2.2), scipy.stats.poisson.cdf(k, 2.2))
    gradient = ad_core.elementwise_grad(lambda mu: poisson.logpmf(k, mu))(np.full(4, 2.2))
    # k = -1: autograd 1.9.1's where(k % 1 == 0, k / mu - 1, 0) gives a non-zero derivative of
    # this constant -inf; it is 0, and k / mu - 1 on the support.
    np.testing.assert_allclose(gradient, [0.0, 0.0, -1.0, 3.0 / 2.2 - 1.0], rtol=1e-15)
    # At mu = 0 the mass sits at k = 0: SciPy's value (xlogy), no nan.
    np.testing.assert_array_equal(poisson.logpmf(k, 0.0), scipy.stats.poisson.logpmf(k, 0.0))


def test_norm_log_tails_have_finite_derivatives():
    """At -40 the cdf underflows to 0; log_ndtr and its derivative (about 40) do not."""
    x = np.array([-40.0, -8.0, 40.0])
    for fun in (norm.logcdf, norm.logsf):
        gradient = ad_core.grad(lambda v, f=fun: anp.sum(f(v, 0.0, 1.0)))(x)
        assert np.all(np.isfinite(gradient))
        expected = numerical_grad(lambda v, f=fun: np.sum(f(v, 0.0, 1.0)), [x])
        np.testing.assert_allclose(gradient, expected, rtol=1e-7, atol=1e-9)


# =============================================================================================
# multivariate_normal and dirichlet: argument forms
# =============================================================================================

FORMS = [
    ("matrix-cov-points", (POINTS, MEAN, COV)),
    ("default-mean-and-cov", (POINTS[:, 0],)),
    ("scalar-cov-dim-1-points", (np.array([0.3, -1.2, 0.8]), 0.5, 2.0)),
    ("vector-cov", (POINTS, MEAN, np.array([1.5, 0.7]))),
    ("scalar-cov-with-mean", (POINTS, MEAN, 1.3)),
    ("one-point-in-a-row", (POINTS[:1], MEAN, COV)),
]


@pytest.mark.parametrize("args", [form[1] for form in FORMS], ids=[form[0] for form in FORMS])
def test_multivariate_normal_argument_forms(args):
    computed = multivariate_normal.logpdf(*args)
    expected = scipy.stats.multivariate_normal.logpdf(*args)
    assert np.shape(computed) == np.shape(expected)
    np.testing.assert_allclose(computed, expected, rtol=1e-13)
    check_grads(multivariate_normal.logpdf, modes=("fwd", "rev"), order=2)(*args)


def test_multivariate_normal_allow_singular():
    """A rank-1 covariance: SciPy's value; the derivative in x and mean along the support (the
    range of cov: off it the density is 0) against finite differences; none in cov."""
    cov = np.array([[1.0, 2.0], [2.0, 4.0]])
    along = np.array([1.0, 2.0]) / np.sqrt(5.0)
    points = np.outer([0.3, -0.8, 1.4], along)
    mean = 0.2 * along
    np.testing.assert_allclose(multivariate_normal.logpdf(points, mean, cov, allow_singular=True),
                               scipy.stats.multivariate_normal.logpdf(points, mean, cov, allow_singular=True),
                               rtol=1e-14)
    for argnum, base in ((0, points), (1, mean)):
        def fun(v, argnum=argnum):
            args = [points, mean, cov]
            args[argnum] = v
            return multivariate_normal.logpdf(*args, allow_singular=True)

        direction = np.outer([0.5, 1.0, 1.5], along) if argnum == 0 else 0.7 * along
        _, tangent = ad_core.make_jvp(fun)(base)(direction)
        np.testing.assert_allclose(tangent, directional_derivative(fun, [base], 0, direction), rtol=1e-8)
        cotangent = np.linspace(-1.0, 1.0, 3)
        vjp, _ = ad_core.make_vjp(fun)(base)
        np.testing.assert_allclose(np.sum(vjp(cotangent) * direction), np.sum(cotangent * tangent),
                                   rtol=1e-12)
        check_grads(lambda t, fun=fun, base=base, direction=direction: fun(base + t * direction),
                    modes=("fwd", "rev"), order=2)(0.1)
    with pytest.raises(NotImplementedError, match="allow_singular"):
        ad_core.grad(lambda c: anp.sum(multivariate_normal.logpdf(points, mean, c, allow_singular=True)))(cov)


def test_multivariate_normal_refuses_an_indefinite_covariance():
    with pytest.raises(ValueError, match="positive definite"):
        multivariate_normal.logpdf(POINTS, MEAN, np.array([[1.0, 2.0], [2.0, 1.0]]))


def test_dirichlet_with_one_component_left_out():
    x = SIMPLEX[:-1]
    np.testing.assert_allclose(st.dirichlet.logpdf(x, ALPHA), scipy.stats.dirichlet.logpdf(x, ALPHA),
                               rtol=1e-14)
    check_grads(st.dirichlet.logpdf, modes=("fwd", "rev"), order=2)(x, ALPHA)


def test_dirichlet_refuses_a_point_off_the_simplex():
    with pytest.raises(ValueError, match="simplex"):
        st.dirichlet.logpdf(np.array([0.2, 0.3, 0.6]), ALPHA)


# =============================================================================================
# What raises: parameters without rules
# =============================================================================================

NO_RULE = [
    ("t.cdf-df", "stdtr", lambda df: st.t.cdf(0.4, df), 3.0),
    ("t.logcdf-df", "stdtr", lambda df: st.t.logcdf(0.4, df, 0.1, 2.0), 3.0),
    ("beta.cdf-a", "betainc", lambda a: st.beta.cdf(0.4, a, 2.0), 1.5),
    ("beta.cdf-b", "betainc", lambda b: st.beta.cdf(0.4, 1.5, b), 2.0),
    ("gamma.cdf-a", "gammainc", lambda a: st.gamma.cdf(0.4, a), 1.5),
    ("chi2.cdf-df", "gammainc", lambda df: st.chi2.cdf(0.4, df), 3.0),
    ("poisson.cdf-k", "poisson.cdf", lambda k: poisson.cdf(k, 2.0), 3.0),
    ("poisson.cdf-loc", "poisson.cdf", lambda loc: poisson.cdf(3.0, 2.0, loc), 1.0),
    ("poisson.logpmf-k", "poisson's count", lambda k: poisson.logpmf(k, 2.0), 3.0),
    ("poisson.pmf-loc", "poisson's count", lambda loc: poisson.pmf(3.0, 2.0, loc), 1.0),
]


@pytest.mark.parametrize(("name", "fun", "x"), [case[1:] for case in NO_RULE],
                         ids=[case[0] for case in NO_RULE])
def test_parameter_without_rule_raises_naming_function(name, fun, x):
    with pytest.raises(NotImplementedError, match=name):
        ad_core.grad(fun)(x)
    with pytest.raises(NotImplementedError, match=name):
        ad_core.make_jvp(fun)(x)(1.0)
