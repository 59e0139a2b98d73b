"""`ad_core.scipy.linalg`: sqrtm, solve_triangular, solve_sylvester, solve, inv, det, cholesky,
cho_solve and solve_banded against finite differences (both modes, second order), single
matrices and stacks, every `trans` / `lower` / `unit_diagonal` / `assume_a` variant; against
HIPS/autograd 1.9.1 where it has a correct rule; what raises without a rule.
"""

from __future__ import annotations

import contextlib

import autograd
import autograd.numpy as agnp
import autograd.scipy.linalg as ag_linalg
import numpy as np
import pytest
import scipy.linalg

import ad_core
import ad_core.numpy as anp
import ad_core.scipy.linalg as ad_linalg
from ad_core import grad, make_jvp

from ._autograd_pairs import (
    Case,
    check_against_finite_differences,
    check_forward_mode_equals_autograd_jacobian,
    check_hessian_vector_product_equals_autograd,
    complex_normal,
    conditioned,
    normal,
    spd,
    spd_of,
    well_conditioned,
)
from ._oracle import allow_constant_derivatives, assert_same_shape, numerical_grad

LINALG = {anp: ad_linalg, agnp: ag_linalg, np: scipy.linalg}
RHS = np.linspace(-1.0, 1.0, 6).reshape(3, 2)
RHS_STACK = np.linspace(-1.0, 2.0, 12).reshape(2, 3, 2)
VECTOR = np.array([0.5, -1.0, 2.0])
FIXED = well_conditioned(np.random.default_rng(7), (3, 3))
FIXED_STACK = well_conditioned(np.random.default_rng(8), (2, 3, 3))
# A matrix in banded storage with l = 2, u = 1 (row u = 1 is the diagonal, kept large).
BANDED = np.random.default_rng(9).standard_normal((4, 5)) + 4.0 * (np.arange(4) == 1)[:, None]





def complex_conditioned(*shape: int):
    return lambda rng: 0.5 * complex_normal(rng, shape) + 3.0 * np.eye(shape[-1])


def factor_with_junk(lower: bool):
    """A Cholesky factor with random numbers in the triangle LAPACK does not read: their
    derivative must be zero, and finite differences see that too."""
    def make(rng):
        factor = np.linalg.cholesky(spd(rng, (3, 3)))
        junk = rng.standard_normal((3, 3))
        return factor + np.triu(junk, 1) if lower else factor.T + np.tril(junk, -1)

    return make


def tri_solve(trans, lower, unit=False, rhs=RHS, wrt="a", a_fixed=FIXED):
    def build(xp):
        linalg = LINALG[xp]
        if wrt == "a":
            return lambda a: linalg.solve_triangular(a, rhs, trans=trans, lower=lower, unit_diagonal=unit)
        return lambda b: linalg.solve_triangular(a_fixed, b, trans=trans, lower=lower, unit_diagonal=unit)

    return build


def sylvester(wrt: int):
    a, b, q = FIXED, FIXED_STACK[0], RHS @ RHS.T + 1.0

    def build(xp):
        solve = LINALG[xp].solve_sylvester
        return [lambda x: solve(x, b, q), lambda x: solve(a, x, q), lambda x: solve(a, b, x)][wrt]

    return build


CASES = [
    Case("sqrtm", lambda xp: LINALG[xp].sqrtm, spd_of(3, 3)),
    Case("sqrtm-nonsymmetric", lambda xp: LINALG[xp].sqrtm, conditioned(3, 3)),
    # autograd 1.9.1 transposes every axis of a stack (anp.transpose(ans)): wrong for stacks.
    Case("sqrtm-stack", lambda xp: LINALG[xp].sqrtm, spd_of(2, 3, 3), autograd=False),
    Case("sylvester-wrt-a", sylvester(0), conditioned(3, 3)),
    Case("sylvester-wrt-b", sylvester(1), conditioned(3, 3)),
    Case("sylvester-wrt-q", sylvester(2), normal(3, 3)),
    # autograd 1.9.1 uses anp.dot and anp.transpose: wrong for stacks.
    Case("sylvester-stack-wrt-a",
         lambda xp: lambda a: LINALG[xp].solve_sylvester(a, FIXED_STACK, RHS_STACK @ RHS.T),
         conditioned(2, 3, 3), autograd=False),
    Case("sylvester-stack-wrt-b",
         lambda xp: lambda b: LINALG[xp].solve_sylvester(FIXED_STACK, b, RHS_STACK @ RHS.T),
         conditioned(2, 3, 3), autograd=False),
    Case("banded-wrt-ab",
         lambda xp: lambda ab: LINALG[xp].solve_banded((2, 1), ab, np.linspace(-1.0, 1.0, 5)),
         lambda rng: BANDED + 0.3 * rng.standard_normal((4, 5))),
    Case("banded-wrt-b", lambda xp: lambda b: LINALG[xp].solve_banded((2, 1), BANDED, b), normal(5)),
    # autograd 1.9.1's banded_dot ravels a matrix right-hand side: wrong shape for several columns.
    Case("banded-matrix-rhs-wrt-ab",
         lambda xp: lambda ab: LINALG[xp].solve_banded((2, 1), ab, np.arange(10.0).reshape(5, 2)),
         lambda rng: BANDED + 0.3 * rng.standard_normal((4, 5)), autograd=False),
    Case("banded-matrix-rhs-wrt-b", lambda xp: lambda b: LINALG[xp].solve_banded((2, 1), BANDED, b),
         normal(5, 2)),
    # No rules in autograd 1.9.1 for the functions below (its scipy.linalg wraps them bare).
    Case("inv", lambda xp: LINALG[xp].inv, conditioned(3, 3), autograd=False),
    Case("inv-stack", lambda xp: LINALG[xp].inv, conditioned(2, 3, 3), autograd=False),
    Case("inv-sym-upper", lambda xp: lambda a: LINALG[xp].inv(a, assume_a="sym"), conditioned(3, 3),
         autograd=False),
    Case("inv-pos-lower", lambda xp: lambda a: LINALG[xp].inv(a, assume_a="pos", lower=True), spd_of(3, 3),
         autograd=False),
    Case("inv-upper-triangular", lambda xp: lambda a: LINALG[xp].inv(a, assume_a="upper triangular"),
         conditioned(3, 3), autograd=False),
    Case("det", lambda xp: LINALG[xp].det, conditioned(3, 3), autograd=False),
    Case("det-stack", lambda xp: LINALG[xp].det, conditioned(2, 3, 3), autograd=False),
    Case("cholesky-upper", lambda xp: LINALG[xp].cholesky, spd_of(3, 3), autograd=False),
    Case("cholesky-lower", lambda xp: lambda a: LINALG[xp].cholesky(a, lower=True), spd_of(3, 3),
         autograd=False),
    Case("cholesky-stack", lambda xp: lambda a: LINALG[xp].cholesky(a, lower=True), spd_of(2, 3, 3),
         autograd=False),
    Case("cho-solve-lower-wrt-c", lambda xp: lambda c: LINALG[xp].cho_solve((c, True), RHS),
         factor_with_junk(True), autograd=False),
    Case("cho-solve-upper-vector-wrt-c", lambda xp: lambda c: LINALG[xp].cho_solve((c, False), VECTOR),
         factor_with_junk(False), autograd=False),
    Case("cho-solve-wrt-b",
         lambda xp: lambda b: LINALG[xp].cho_solve((np.linalg.cholesky(FIXED @ FIXED.T), True), b),
         normal(3, 2), autograd=False),
    Case("cho-solve-stack-wrt-b",
         lambda xp: lambda b: LINALG[xp].cho_solve((np.linalg.cholesky(FIXED_STACK @ FIXED_STACK), True), b),
         normal(2, 3, 2), autograd=False),
]

# solve_triangular: every trans spelling, both triangles, unit diagonal, vector and matrix b.
# autograd 1.9.1's rule is correct for the real cases without unit_diagonal (which its VJPs
# ignore in both arguments: they solve with the stored diagonal of `a`) and, for `a`, only for
# single matrices (`.T` and `anp.dot` raise on stacks).
for _trans in (0, 1, 2, "N", "T", "C"):
    for _lower in (False, True):
        _name = f"trans-{_trans}-{'lower' if _lower else 'upper'}"
        CASES.append(Case(f"solve-triangular-{_name}-wrt-a", tri_solve(_trans, _lower), conditioned(3, 3)))
        CASES.append(Case(f"solve-triangular-{_name}-wrt-b", tri_solve(_trans, _lower, wrt="b"),
                          normal(3, 2)))
        CASES.append(Case(f"solve-triangular-{_name}-unit-wrt-a", tri_solve(_trans, _lower, unit=True),
                          conditioned(3, 3), autograd=False))
CASES += [
    Case("solve-triangular-vector-wrt-a", tri_solve(0, True, rhs=VECTOR), conditioned(3, 3)),
    Case("solve-triangular-vector-T-wrt-b", tri_solve("T", False, wrt="b"), normal(3)),
    Case("solve-triangular-unit-wrt-b", tri_solve(1, True, unit=True, wrt="b"), normal(3, 2),
         autograd=False),
    Case("solve-triangular-stack-wrt-a", tri_solve("T", True, rhs=RHS_STACK), conditioned(2, 3, 3),
         autograd=False),
    Case("solve-triangular-stack-wrt-b", tri_solve(0, False, wrt="b", a_fixed=FIXED_STACK), normal(2, 3, 2)),
    # Complex a: trans='C' is anti-linear in a. For it autograd 1.9.1 is wrong in both arguments
    # (its _flip solves with trans='N' where the conjugate of a belongs); the complex 'N' case
    # is FD-only because the forward-mode comparison with autograd needs a real input.
    Case("solve-triangular-complex-N", tri_solve("N", True), complex_conditioned(3, 3), autograd=False),
    Case("solve-triangular-complex-C", tri_solve("C", False), complex_conditioned(3, 3), autograd=False),
    Case("solve-triangular-complex-C-wrt-b", tri_solve("C", True, wrt="b", a_fixed=FIXED + 0.5j * np.eye(3)),
         lambda rng: complex_normal(rng, (3, 2)), autograd=False),
]

# solve: every assume_a, both triangles, transposed; no rule in autograd 1.9.1.
for _assume in (None, "gen", "sym", "pos", "diagonal", "tridiagonal", "upper triangular",
                "lower triangular", "banded"):
    for _lower in (False, True):
        for _transposed in (False, True):
            _make = spd_of(3, 3) if _assume == "pos" else conditioned(3, 3)
            CASES.append(Case(
                f"solve-{_assume}-{'lower' if _lower else 'upper'}-{'T' if _transposed else 'N'}",
                lambda xp, assume=_assume, lower=_lower, transposed=_transposed: lambda a: LINALG[xp].solve(
                    a, RHS, assume_a=assume, lower=lower, transposed=transposed),
                _make, autograd=False))
CASES += [
    Case("solve-wrt-vector-b-sym",
         lambda xp: lambda b: LINALG[xp].solve(FIXED, b, assume_a="sym", lower=True), normal(3),
         autograd=False),
    Case("solve-stack-vector-b", lambda xp: lambda a: LINALG[xp].solve(a, VECTOR), conditioned(2, 3, 3),
         autograd=False),
    Case("solve-stack-wrt-b", lambda xp: lambda b: LINALG[xp].solve(FIXED_STACK, b, transposed=True),
         normal(2, 3, 2), autograd=False),
]
AUTOGRAD_CASES = [case for case in CASES if case.autograd]


@allow_constant_derivatives
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_scipy_linalg_rule_passes_check_grads_to_second_order(case: Case, rng) -> None:
    check_against_finite_differences(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_scipy_linalg_gradient_equals_autograd_to_1e_12(case: Case, rng) -> None:
    x = case.make_input(rng)
    weights = rng.standard_normal(np.shape(case.build(np)(x)))
    computed = grad(lambda v: anp.sum(anp.real(case.build(anp)(v) * weights)))(x)
    expected = autograd.grad(lambda v: agnp.sum(agnp.real(case.build(agnp)(v) * weights)))(x)
    assert_same_shape(computed, np.shape(x), case.name)
    assert_same_shape(expected, np.shape(x), "autograd's gradient")
    np.testing.assert_allclose(computed, expected, rtol=1e-12, atol=1e-12 * np.max(np.abs(expected)))


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_scipy_linalg_forward_mode_equals_autograd_jacobian(case: Case, rng) -> None:
    check_forward_mode_equals_autograd_jacobian(case, rng)


@allow_constant_derivatives
@pytest.mark.filterwarnings("ignore:Output seems independent of input:UserWarning")
@pytest.mark.parametrize("case", [c for c in AUTOGRAD_CASES if c.name.startswith(("sqrtm", "sylvester"))],
                         ids=lambda case: case.name)
def test_scipy_linalg_hessian_vector_product_equals_autograd(case: Case, rng) -> None:
    check_hessian_vector_product_equals_autograd(case, rng)


def test_autograd_solve_triangular_ignores_unit_diagonal(rng) -> None:
    """The reason the unit-diagonal cases are FD-only: autograd 1.9.1's VJP for `b` solves with
    the stored diagonal, ours with ones, and finite differences side with ours."""
    a = well_conditioned(rng, (3, 3))
    weights = rng.standard_normal((3, 2))

    def loss(linalg, xp):
        return lambda b: xp.sum(linalg.solve_triangular(a, b, lower=True, unit_diagonal=True) * weights)

    ours = grad(loss(ad_linalg, anp))(RHS)
    theirs = autograd.grad(loss(ag_linalg, agnp))(RHS)
    expected = numerical_grad(loss(scipy.linalg, np), [RHS])
    assert_same_shape(ours, RHS.shape, "gradient")
    np.testing.assert_allclose(ours, expected, rtol=1e-7, atol=1e-9)
    assert not np.allclose(theirs, expected)


def test_cholesky_cotangent_sits_on_the_triangle_scipy_reads(rng) -> None:
    a = spd(rng, (3, 3))
    weights = rng.standard_normal((3, 3))
    for lower, untouched in ((True, np.triu_indices(3, 1)), (False, np.tril_indices(3, -1))):
        gradient = grad(lambda x, lower=lower: anp.sum(ad_linalg.cholesky(x, lower=lower) * weights))(a)
        assert_same_shape(gradient, (3, 3), "cholesky gradient")
        assert np.all(gradient[untouched] == 0.0)
        assert np.any(gradient[np.tril_indices(3, -1) if lower else np.triu_indices(3, 1)] != 0.0)


def test_cho_solve_traces_the_factor_inside_the_pair(rng) -> None:
    """The factor reaches the primitive through a Python tuple; the gradient must still flow."""
    a = spd(rng, (3, 3))

    def loss(x):
        return anp.sum(ad_linalg.cho_solve((ad_linalg.cholesky(x, lower=True), True), RHS) * RHS)

    def reference(x):
        return np.sum(np.linalg.solve(np.tril(x) + np.tril(x, -1).T, RHS) * RHS)

    gradient = grad(loss)(a)
    assert_same_shape(gradient, (3, 3), "gradient")
    np.testing.assert_allclose(gradient, numerical_grad(reference, [a]), rtol=1e-7, atol=1e-9)


def test_sqrtm_of_a_matrix_with_a_complex_root_has_a_real_gradient(rng) -> None:
    a = np.array([[-1.0, 0.3, 0.0], [0.2, 2.0, 0.1], [0.0, 0.4, 3.0]])
    weights = rng.standard_normal((3, 3))

    def loss(linalg, xp):
        return lambda x: xp.sum(xp.real(linalg.sqrtm(x)) * weights)

    assert np.iscomplexobj(scipy.linalg.sqrtm(a))
    gradient = grad(loss(ad_linalg, anp))(a)
    assert_same_shape(gradient, (3, 3), "gradient")
    assert not np.iscomplexobj(gradient)
    np.testing.assert_allclose(gradient, numerical_grad(loss(scipy.linalg, np), [a]), rtol=1e-7, atol=1e-9)


def test_functions_without_rules_compute_their_values() -> None:
    a = FIXED / 3.0
    np.testing.assert_array_equal(ad_linalg.expm(a), scipy.linalg.expm(a))
    assert ad_linalg.LinAlgError is scipy.linalg.LinAlgError
    assert callable(ad_linalg.lu_factor) and "expm" in ad_linalg.__all__


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_function_without_rule_raises_naming_it_when_differentiated(mode) -> None:
    a = FIXED / 3.0
    with pytest.raises(NotImplementedError, match="expm with respect to argument 0"):
        if mode == "rev":
            grad(lambda x: anp.sum(ad_linalg.expm(x)))(a)
        else:
            make_jvp(ad_linalg.expm)(a)(np.ones((3, 3)))


@pytest.mark.parametrize("call, match", [
    (lambda x: ad_linalg.inv(x, assume_a="diagonal"), "inv with assume_a='diagonal'"),
    (lambda x: ad_linalg.solve(x + 0j, RHS, assume_a="her"), "solve with assume_a='her'"),
    (lambda x: ad_linalg.cholesky(x + 0j), "cholesky rules are for real"),
    (lambda x: ad_linalg.sqrtm(x, disp=False)[0], "sqrtm with disp=False"),
])
def test_unsupported_variants_raise_when_differentiated(call, match) -> None:
    # SciPy 1.17 deprecates sqrtm's disp argument.
    expected_warning = pytest.warns(DeprecationWarning) if "disp" in match else contextlib.nullcontext()
    with expected_warning, pytest.raises(NotImplementedError, match=match):
        grad(lambda x: anp.sum(anp.real(call(x))))(FIXED @ FIXED.T)


def test_value_and_grad_of_a_solve_triangular_chain_match_scipy(rng) -> None:
    """A composed use: the value is SciPy's, the gradient matches finite differences."""
    a = well_conditioned(rng, (3, 3))

    def loss(linalg, xp):
        return lambda x: xp.sum(linalg.solve_triangular(x, linalg.solve_triangular(x, RHS, lower=True),
                                                        lower=True, trans="T") ** 2)

    value, gradient = ad_core.value_and_grad(loss(ad_linalg, anp))(a)
    assert value == loss(scipy.linalg, np)(a)
    assert_same_shape(gradient, (3, 3), "gradient")
    np.testing.assert_allclose(gradient, numerical_grad(loss(scipy.linalg, np), [a]), rtol=1e-7, atol=1e-9)
