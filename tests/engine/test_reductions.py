"""Reductions (sum, mean, var, std, prod, max/min, cumsum) with axis, keepdims and ddof."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, make_jvp, make_vjp
from ad_core.test_util import check_grads

from ._oracle import (
    allow_constant_derivatives,
    check_both_modes,
    directional_derivative,
    distinct_values,
    numerical_complex_grad,
    numerical_grad,
    shape_id,
    uniform,
)

AXIS_CASES: list[tuple[tuple[int, ...], dict[str, Any]]] = [
    ((4,), {}),
    ((4,), {"axis": 0}),
    ((3, 4), {}),
    ((3, 4), {"axis": 0}),
    ((3, 4), {"axis": 1, "keepdims": True}),
    ((3, 4), {"axis": -1}),
    ((2, 3, 4), {"axis": (0, 2)}),
    ((2, 3, 4), {"axis": 1, "keepdims": True}),
    ((2, 3, 4), {"axis": (0, 2), "keepdims": True}),
]


def case_id(case: tuple[tuple[int, ...], dict[str, Any]]) -> str:
    shape, kwargs = case
    options = ",".join(f"{key}={value}" for key, value in kwargs.items()).replace(" ", "")
    return f"{shape_id(shape)}-{options or 'all-axes'}"


SMOOTH_REDUCTIONS: dict[str, Callable[..., Any]] = {
    "sum": anp.sum,
    "mean": anp.mean,
    "var": anp.var,
    "std": anp.std,
    "var-ddof1": lambda x, **kw: anp.var(x, ddof=1, **kw),
    "std-ddof1": lambda x, **kw: anp.std(x, ddof=1, **kw),
    "prod": anp.prod,
    "sum-method": lambda x, **kw: x.sum(**kw),
    "mean-method": lambda x, **kw: x.mean(**kw),
}
CHOOSING_REDUCTIONS: dict[str, Callable[..., Any]] = {
    "max": anp.max,
    "min": anp.min,
    "amax": anp.amax,
    "amin": anp.amin,
    "max-method": lambda x, **kw: x.max(**kw),
    "min-method": lambda x, **kw: x.min(**kw),
}


@pytest.mark.parametrize("case", AXIS_CASES, ids=case_id)
@pytest.mark.parametrize("name", list(SMOOTH_REDUCTIONS))
def test_smooth_reduction_matches_finite_differences(name: str, case, rng) -> None:
    shape, kwargs = case
    # Away from zero so that prod's gradient (ans / x in some engines) stays well conditioned.
    x = uniform(rng, shape, 0.5, 1.5)
    check_both_modes(lambda v: SMOOTH_REDUCTIONS[name](v, **kwargs), [x], rng)


@pytest.mark.parametrize("case", AXIS_CASES, ids=case_id)
@pytest.mark.parametrize("name", list(CHOOSING_REDUCTIONS))
def test_max_and_min_route_gradient_to_the_chosen_entry(name: str, case, rng) -> None:
    shape, kwargs = case
    x = distinct_values(rng, shape)
    check_both_modes(lambda v: CHOOSING_REDUCTIONS[name](v, **kwargs), [x], rng)


@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "prod", "max"])
@allow_constant_derivatives
def test_reduction_passes_check_grads_to_second_order(name: str, rng) -> None:
    function = {**SMOOTH_REDUCTIONS, **CHOOSING_REDUCTIONS}[name]
    x = distinct_values(rng, (3, 4)) + 2.0
    check_grads(lambda v: function(v, axis=1), modes=("fwd", "rev"), order=2)(x)


@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=lambda axis: f"axis={axis}")
def test_cumsum_matches_finite_differences(axis, rng) -> None:
    check_both_modes(lambda v: anp.cumsum(v, axis=axis), [rng.standard_normal((3, 4))], rng)


@allow_constant_derivatives
def test_cumsum_passes_check_grads(rng) -> None:
    check_grads(lambda v: anp.cumsum(v, axis=0), modes=("fwd", "rev"), order=2)(rng.standard_normal((3, 4)))


def test_prod_with_a_zero_entry_has_the_product_of_the_others_as_gradient() -> None:
    # The "ans / x" shortcut would divide by zero here; the true partials are finite.
    x = np.array([2.0, 0.0, 3.0, 4.0])
    np.testing.assert_allclose(grad(anp.prod)(x), numerical_grad(anp.prod, [x]), atol=1e-9)


def test_sum_of_scalar_gives_scalar_gradient() -> None:
    gradient = grad(lambda v: anp.sum(v * 3.0))(2.0)
    assert np.shape(gradient) == ()
    assert gradient == 3.0


def test_max_tie_splits_the_gradient_between_tied_entries() -> None:
    # Convention (HIPS/autograd's): every entry equal to the maximum gets g / (number of ties).
    x = np.array([[1.0, 3.0, 3.0], [0.0, 2.0, -1.0]])
    gradient = grad(lambda v: anp.sum(anp.max(v, axis=1)))(x)
    is_max = x == x.max(axis=1, keepdims=True)
    np.testing.assert_allclose(gradient, is_max / is_max.sum(axis=1, keepdims=True))


TIE_CASES = [
    ((2, 3), {"axis": 1}),
    ((2, 3), {"axis": 0, "keepdims": True}),
    ((2, 3), {}),
]


@pytest.mark.parametrize("case", TIE_CASES, ids=case_id)
@pytest.mark.parametrize("name", ["max", "min"])
def test_ties_share_the_cotangent_and_the_tangent_equally(name: str, case, rng) -> None:
    shape, kwargs = case
    reduce = CHOOSING_REDUCTIONS[name]
    x = np.array([[1.0, 3.0, 3.0], [3.0, -2.0, 3.0]]) * (1.0 if name == "max" else -1.0)
    chosen = x == reduce(x, axis=kwargs.get("axis"), keepdims=True)
    share = chosen / chosen.sum(axis=kwargs.get("axis"), keepdims=True)
    out_shape = np.shape(reduce(x, **kwargs))
    cotangent = rng.standard_normal(out_shape)
    vjp, _ = make_vjp(lambda v: reduce(v, **kwargs))(x)
    expected_vjp = share * np.reshape(cotangent, np.shape(reduce(x, axis=kwargs.get("axis"), keepdims=True)))
    np.testing.assert_allclose(vjp(cotangent), expected_vjp, rtol=1e-15)
    tangent = rng.standard_normal(shape)
    _, jvp = make_jvp(lambda v: reduce(v, **kwargs))(x)(tangent)
    np.testing.assert_allclose(jvp, np.sum(share * tangent, **kwargs), rtol=1e-14)


@pytest.mark.parametrize("name", ["var", "std", "var-ddof1"])
@pytest.mark.parametrize("case", [((4,), {}), ((2, 3), {"axis": 1, "keepdims": True})], ids=case_id)
def test_var_and_std_of_complex_input_match_finite_differences(name: str, case, rng) -> None:
    # The rules conjugate `x - mean` only for complex input; real input skips that copy.
    shape, kwargs = case
    z = rng.uniform(0.5, 2.0, shape) * np.exp(1j * rng.uniform(-3.0, 3.0, shape))
    weights = rng.standard_normal(np.shape(SMOOTH_REDUCTIONS[name](z, **kwargs)))

    def loss(v):
        return anp.sum(weights * SMOOTH_REDUCTIONS[name](v, **kwargs))

    computed = grad(loss)(z)
    assert np.iscomplexobj(computed)
    np.testing.assert_allclose(computed, numerical_complex_grad(loss, z), rtol=1e-7, atol=1e-8)
    direction = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    _, tangent_out = make_jvp(loss)(z)(direction)
    expected = directional_derivative(loss, [z], 0, direction)
    np.testing.assert_allclose(tangent_out, expected, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std_rules_leave_their_input_untouched_and_keep_its_dtype(name: str, rng) -> None:
    # The rules multiply into their own `x - mean` temporary; only a same-dtype factor may be
    # written into it, so a float32 input with a float64 cotangent takes the ordinary product.
    function = SMOOTH_REDUCTIONS[name]
    for dtype in (np.float64, np.float32):
        x = rng.uniform(0.5, 1.5, (5, 3)).astype(dtype)
        kept = x.copy()
        vjp, _ = make_vjp(lambda v: function(v, axis=0))(x)
        g = rng.standard_normal(3)
        computed = vjp(g)
        np.testing.assert_array_equal(x, kept)
        centred = x - x.mean(axis=0)
        scale = g / (5 * (1.0 if name == "var" else 2.0 * np.std(x, axis=0)))
        assert computed.dtype == np.result_type(centred, scale)
        np.testing.assert_allclose(computed, 2.0 * scale * centred, rtol=1e-6)


@pytest.mark.parametrize("shape, axis", [((1,), None), ((3, 1), 1), ((1, 4), 0)], ids=str)
def test_std_over_a_single_entry_has_zero_derivative_in_both_modes(shape, axis, rng) -> None:
    # std is identically 0 there; the rules divided by it and gave NaN (HIPS/autograd gives 0).
    x = rng.standard_normal(shape)
    gradient = grad(lambda v: anp.sum(anp.std(v, axis=axis)))(x)
    assert gradient.shape == shape
    np.testing.assert_array_equal(gradient, np.zeros(shape))
    _, tangent = make_jvp(lambda v: anp.std(v, axis=axis))(x)(rng.standard_normal(shape))
    assert np.shape(tangent) == np.shape(np.std(x, axis=axis))
    np.testing.assert_array_equal(tangent, np.zeros(np.shape(tangent)))


# NumPy's own reductions reach a traced value through its methods, with NumPy's signatures.
NUMPY_METHOD_REDUCTIONS = ["sum", "mean", "var", "std", "max", "min", "prod"]


@pytest.mark.parametrize("name", NUMPY_METHOD_REDUCTIONS)
def test_numpys_reduction_on_a_traced_value_differentiates_like_the_wrapped_one(name: str, rng) -> None:
    import autograd

    x = distinct_values(rng, (3, 4)) + 2.0  # positive and tie-free: prod, max and min are smooth
    plain, wrapped = getattr(np, name), getattr(anp, name)
    ours = grad(lambda x: plain(plain(x, axis=0) * 1.0))(x)
    assert ours.shape == x.shape
    np.testing.assert_allclose(ours, grad(lambda x: wrapped(wrapped(x, axis=0)))(x), rtol=1e-14)
    np.testing.assert_allclose(ours, autograd.grad(lambda x: plain(plain(x, axis=0) * 1.0))(x), rtol=1e-12)
    check_grads(lambda x: plain(x, axis=1) * 1.0, modes=("fwd", "rev"), order=2)(x)


@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "prod", "cumsum"])
def test_a_dtype_argument_reaches_the_rules(name: str, rng) -> None:
    x = uniform(rng, (2, 3), 0.5, 1.5)
    fun = getattr(anp, name)
    check_grads(lambda x: fun(x, axis=1, dtype=np.float64), modes=("fwd", "rev"), order=2)(x)
    gradient = grad(lambda x: anp.sum(fun(x, axis=1, dtype=np.float64)))(x)
    np.testing.assert_allclose(
        gradient, numerical_grad(lambda x: np.sum(getattr(np, name)(x, axis=1)), [x]), rtol=1e-7
    )


@pytest.mark.parametrize("name", [*NUMPY_METHOD_REDUCTIONS, "cumsum"])
def test_an_out_argument_on_a_traced_value_is_refused_by_name(name: str, rng) -> None:
    x = uniform(rng, (3,), 0.5, 1.5)
    out = np.zeros(3) if name == "cumsum" else np.zeros(())
    with pytest.raises(TypeError, match=rf"{name}\(\.\.\., out=\.\.\.\) of a traced value"):
        grad(lambda x: anp.sum(getattr(x, name)(out=out)))(x)
