"""`ad_core.scipy.signal.convolve`: values against scipy.signal and HIPS/autograd 1.9.1, every
mode with plain, permuted and contracted axes, both arguments, against finite differences (both
modes, second order) and autograd's gradients, Jacobians and Hessian-vector products.
"""

from __future__ import annotations

import autograd
import autograd.numpy as agnp
import autograd.scipy.signal as ag_signal
import numpy as np
import pytest
import scipy.signal

import ad_core.numpy as anp
import ad_core.scipy.signal as ad_signal
from ad_core import grad

from ._autograd_pairs import (
    Case,
    check_against_finite_differences,
    check_forward_mode_equals_autograd_jacobian,
    check_hessian_vector_product_equals_autograd,
)
from ._oracle import allow_constant_derivatives, assert_same_shape

# (shape of A, shape of B, axes, dot_axes): 1-d of both orders of length, 2-d, a batch of images
# against a bank of filters contracted over channels (as in a convnet), and permuted axes.
LAYOUTS = {
    "1d-longer-a": ((7,), (3,), None, ((), ())),
    "1d-longer-b": ((3,), (6,), None, ((), ())),
    "2d": ((5, 6), (2, 3), None, ((), ())),
    "images-filters": ((2, 3, 6, 5), (4, 3, 3, 2), ([2, 3], [2, 3]), ([1], [1])),
    "permuted-axes": ((6, 2, 5), (5, 3, 2), ([0, 2], [0, 1]), ([1], [2])),
    "negative-axes": ((2, 7), (3, 4), ([-1], [1]), ((), ())),
}


def fixed(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def convolve_case(layout: str, mode: str, wrt: int) -> Case:
    shape_a, shape_b, axes, dot_axes = LAYOUTS[layout]
    a_fixed, b_fixed = fixed(shape_a, 1), fixed(shape_b, 2)

    def build(xp):
        if xp is np:
            return lambda x: reference((x, b_fixed) if wrt == 0 else (a_fixed, x), axes, dot_axes, mode)
        if xp is anp:
            def call(a, b):
                return ad_signal.convolve(a, b, mode, axes=axes, dot_axes=dot_axes)
        else:
            def call(a, b):
                return ag_signal.convolve(a, b, axes=axes, dot_axes=dot_axes, mode=mode)
        return (lambda x: call(x, b_fixed)) if wrt == 0 else (lambda x: call(a_fixed, x))

    # autograd 1.9.1 does not reduce negative axes modulo ndim: with axes=([-1], [1]) it
    # treats axis -1 of A as kept too, and returns a wrong value of the wrong shape.
    return Case(f"{layout}-{mode}-wrt-{'ab'[wrt]}", build,
                lambda rng: rng.standard_normal((shape_a, shape_b)[wrt]), autograd=layout != "negative-axes")


def reference(pair, axes, dot_axes, mode):
    """The definition, written out with loops over scipy.signal.convolve: only for the layouts
    above (convolved axes moved last, contracted axes summed, kept axes of A then B)."""
    a, b = pair
    if axes is None:
        return scipy.signal.convolve(a, b, mode)
    axes_a, axes_b = [[i % x.ndim for i in ax] for ax, x in zip(axes, pair, strict=True)]
    dot_a, dot_b = dot_axes
    keep_a = [i for i in range(a.ndim) if i not in axes_a + list(dot_a)]
    keep_b = [i for i in range(b.ndim) if i not in axes_b + list(dot_b)]
    a = np.transpose(a, keep_a + list(dot_a) + axes_a)
    b = np.transpose(b, keep_b + list(dot_b) + axes_b)
    n_dot = len(dot_a)
    a = a.reshape(-1, *a.shape[len(keep_a):])
    b = b.reshape(-1, *b.shape[len(keep_b):])
    rows = []
    for i in range(a.shape[0]):
        row = []
        for j in range(b.shape[0]):
            total = 0.0
            for k in np.ndindex(*a.shape[1: 1 + n_dot]):
                total = total + scipy.signal.convolve(a[(i, *k)], b[(j, *k)], mode)
            row.append(total)
        rows.append(row)
    out = np.array(rows)
    kept_shape = [pair[0].shape[i] for i in keep_a] + [pair[1].shape[i] for i in keep_b]
    return out.reshape(*kept_shape, *out.shape[2:])


MODES = ("full", "valid", "same")
CASES = [convolve_case(layout, mode, wrt) for layout in LAYOUTS for mode in MODES for wrt in (0, 1)]
AUTOGRAD_CASES = [case for case in CASES if case.autograd]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_convolve_value_matches_scipy_signal_and_autograd(case: Case, rng) -> None:
    x = case.make_input(rng)
    value = case.build(anp)(x)
    expected = case.build(np)(x)
    assert_same_shape(value, np.shape(expected), case.name)
    np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)
    if case.autograd:
        np.testing.assert_allclose(value, case.build(agnp)(x), rtol=1e-12, atol=1e-12)


@allow_constant_derivatives
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_convolve_passes_check_grads_to_second_order(case: Case, rng) -> None:
    check_against_finite_differences(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_convolve_gradient_equals_autograd_to_1e_12(case: Case, rng) -> None:
    x = case.make_input(rng)
    weights = rng.standard_normal(np.shape(case.build(np)(x)))
    computed = grad(lambda v: anp.sum(case.build(anp)(v) * weights))(x)
    expected = autograd.grad(lambda v: agnp.sum(case.build(agnp)(v) * weights))(x)
    assert_same_shape(computed, np.shape(x), case.name)
    np.testing.assert_allclose(computed, expected, rtol=1e-12, atol=1e-12 * np.max(np.abs(expected)))


@pytest.mark.parametrize("case", AUTOGRAD_CASES[::3], ids=lambda case: case.name)
def test_convolve_forward_mode_equals_autograd_jacobian(case: Case, rng) -> None:
    check_forward_mode_equals_autograd_jacobian(case, rng)


@allow_constant_derivatives
@pytest.mark.filterwarnings("ignore:Output seems independent of input:UserWarning")
@pytest.mark.parametrize("case", AUTOGRAD_CASES[1::4], ids=lambda case: case.name)
def test_convolve_hessian_vector_product_equals_autograd(case: Case, rng) -> None:
    check_hessian_vector_product_equals_autograd(case, rng)


def test_convolve_second_derivative_couples_both_arguments(rng) -> None:
    """Both arguments traced at once (the mixed second derivatives of a bilinear map), checked
    against finite differences by check_grads."""
    from ad_core.test_util import check_grads

    a, b = rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 2, 3))
    check_grads(lambda a, b: ad_signal.convolve(a, b, "same", axes=([1, 2], [1, 2]), dot_axes=([0], [0])),
                modes=("fwd", "rev"), order=2)(a, b)


def test_autograd_convolve_mishandles_negative_axes() -> None:
    """The reason the negative-axes cases are compared with the reference only."""
    a, b = fixed((2, 7), 3), fixed((3, 4), 4)
    expected = reference((a, b), ([-1], [1]), ((), ()), "full")
    assert_same_shape(ad_signal.convolve(a, b, axes=([-1], [1])), expected.shape, "ours")
    assert np.shape(ag_signal.convolve(a, b, axes=([-1], [1]))) != expected.shape


def test_convolve_accepts_autograds_positional_order(rng) -> None:
    a, b = rng.standard_normal((2, 6)), rng.standard_normal((2, 3))
    axes, dot_axes = ([1], [1]), ([0], [0])
    ours = ad_signal.convolve(a, b, axes, dot_axes, "valid")
    theirs = ag_signal.convolve(a, b, axes, dot_axes, "valid")
    assert_same_shape(ours, (4,), "value")
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"mode": "circular"}, "mode must be one of"),
    ({"mode": "valid", "axes": ([0, 1], [0, 1])}, "at least as long"),
    ({"axes": ([0], [0, 1])}, "as many axes"),
    ({"axes": ([0], [0]), "dot_axes": ([0], [1])}, "listed twice"),
])
def test_convolve_rejects_bad_layouts(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        ad_signal.convolve(np.ones((4, 2)), np.ones((2, 3)), **kwargs)
