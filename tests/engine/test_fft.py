"""`ad_core.numpy.fft`: the complex, real-input and real-output transforms and the shifts against
finite differences (both modes, second order) and HIPS/autograd 1.9.1; cut and padded lengths,
every normalisation, odd lengths, stacks; what raises without a rule.
"""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, make_jvp

from ._autograd_pairs import (
    Case,
    check_against_finite_differences,
    check_forward_mode_equals_autograd_jacobian,
    check_gradient_equals_autograd,
    check_hessian_vector_product_equals_autograd,
    complex_normal,
    complex_of,
    normal,
)
from ._oracle import allow_constant_derivatives, numerical_complex_grad, numerical_grad

CASES = [
    Case("fft", lambda xp: xp.fft.fft, normal(6)),
    Case("fft-odd-length", lambda xp: xp.fft.fft, normal(5)),
    Case("fft-complex-input", lambda xp: xp.fft.fft, complex_of(2, 5)),
    Case("fft-padded-ortho", lambda xp: lambda x: xp.fft.fft(x, n=8, norm="ortho"), normal(2, 5)),
    Case("fft-cut-axis-0", lambda xp: lambda x: xp.fft.fft(x, n=3, axis=0), normal(5, 2)),
    Case("fft-forward-norm", lambda xp: lambda x: xp.fft.fft(x, norm="forward"), normal(4)),
    Case("ifft", lambda xp: xp.fft.ifft, normal(6)),
    Case("ifft-complex-cut", lambda xp: lambda x: xp.fft.ifft(x, n=4), complex_of(3, 6)),
    Case("fft2", lambda xp: xp.fft.fft2, normal(3, 4)),
    Case("fft2-shape-batched", lambda xp: lambda x: xp.fft.fft2(x, s=(3, 6)), normal(2, 4, 4)),
    Case("ifft2-complex", lambda xp: xp.fft.ifft2, complex_of(3, 4)),
    Case("fftn", lambda xp: xp.fft.fftn, normal(2, 3, 4)),
    Case("fftn-axes", lambda xp: lambda x: xp.fft.fftn(x, axes=(0, 2)), normal(2, 3, 4)),
    Case("ifftn-ortho", lambda xp: lambda x: xp.fft.ifftn(x, norm="ortho"), complex_of(2, 3)),
    Case("rfft", lambda xp: xp.fft.rfft, normal(6)),
    # Positional n: autograd 1.9.1's rule reads a keyword n as absent.
    Case("rfft-padded-batched", lambda xp: lambda x: xp.fft.rfft(x, 8), normal(3, 5)),
    Case("rfft-ortho-axis-0", lambda xp: lambda x: xp.fft.rfft(x, axis=0, norm="ortho"), normal(4, 3)),
    # autograd 1.9.1 refuses odd lengths for the real transforms.
    Case("rfft-odd-length", lambda xp: xp.fft.rfft, normal(7), autograd=False),
    Case("rfft-cut-odd-forward", lambda xp: lambda x: xp.fft.rfft(x, n=5, norm="forward"), normal(2, 8),
         autograd=False),
    Case("rfft2", lambda xp: xp.fft.rfft2, normal(4, 6)),
    Case("rfftn-shape", lambda xp: lambda x: xp.fft.rfftn(x, s=(3, 4), axes=(0, 1)), normal(4, 5)),
    # autograd's test_rfftn_odd_not_implemented expects NotImplementedError here: ad_core's rule
    # is exact for an odd last axis (a listed difference, README).
    Case("rfftn-odd-last-axis", lambda xp: xp.fft.rfftn, normal(5, 5, 5), autograd=False),
    Case("irfft", lambda xp: xp.fft.irfft, complex_of(4)),
    Case("irfft-real-input", lambda xp: xp.fft.irfft, normal(2, 5)),
    Case("irfft-ortho-padded", lambda xp: lambda x: xp.fft.irfft(x, n=10, norm="ortho"), complex_of(4)),
    Case("irfft-odd-length", lambda xp: lambda x: xp.fft.irfft(x, n=7), complex_of(4), autograd=False),
    # autograd 1.9.1's irfft rule scales wrongly for norm="forward" (and for "backward" spelled out).
    Case("irfft-forward-norm", lambda xp: lambda x: xp.fft.irfft(x, norm="forward"), complex_of(5),
         autograd=False),
    Case("irfft-backward-norm-cut", lambda xp: lambda x: xp.fft.irfft(x, n=4, norm="backward"),
         complex_of(2, 5), autograd=False),
    Case("irfft2", lambda xp: xp.fft.irfft2, complex_of(4, 3)),
    Case("irfftn-shape-odd", lambda xp: lambda x: xp.fft.irfftn(x, s=(3, 5), axes=(0, 1)), complex_of(4, 3),
         autograd=False),
    Case("irfftn-3d", lambda xp: xp.fft.irfftn, complex_of(2, 3, 4)),
    Case("fftshift", lambda xp: xp.fft.fftshift, normal(3, 5)),
    Case("fftshift-axis", lambda xp: lambda x: xp.fft.fftshift(x, axes=1), complex_of(3, 5)),
    Case("ifftshift", lambda xp: xp.fft.ifftshift, normal(4, 5)),
    Case("round-trip-through-spectrum",
         lambda xp: lambda x: xp.fft.irfft(xp.fft.rfft(x) * xp.exp(-xp.arange(4.0)), n=6) ** 2,
         normal(6)),
]

AUTOGRAD_CASES = [case for case in CASES if case.autograd]
# autograd's jacobian and hessian_vector_product need real inputs.
REAL_INPUT_AUTOGRAD_CASES = [
    case for case in AUTOGRAD_CASES if np.isrealobj(case.make_input(np.random.default_rng(0)))
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
@allow_constant_derivatives
def test_fft_rule_passes_check_grads_to_second_order(case: Case, rng) -> None:
    check_against_finite_differences(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_fft_gradient_equals_autograd(case: Case, rng) -> None:
    check_gradient_equals_autograd(case, rng)


@pytest.mark.parametrize("case", REAL_INPUT_AUTOGRAD_CASES, ids=lambda case: case.name)
def test_fft_forward_mode_equals_autograd_jacobian(case: Case, rng) -> None:
    check_forward_mode_equals_autograd_jacobian(case, rng)


@pytest.mark.parametrize("case", REAL_INPUT_AUTOGRAD_CASES, ids=lambda case: case.name)
@allow_constant_derivatives
@pytest.mark.filterwarnings("ignore:Output seems independent of input:UserWarning")
def test_fft_hessian_vector_product_equals_autograd(case: Case, rng) -> None:
    check_hessian_vector_product_equals_autograd(case, rng)


def test_fft_of_a_real_input_has_a_real_gradient(rng) -> None:
    x = rng.standard_normal(6)
    weights = rng.standard_normal(6) + 1j * rng.standard_normal(6)

    def loss(v):
        return anp.sum(anp.abs(anp.fft.fft(v) * weights) ** 2)

    computed = grad(loss)(x)
    assert computed.shape == (6,)
    assert computed.dtype == np.float64
    np.testing.assert_allclose(computed, numerical_grad(loss, [x]), rtol=1e-7, atol=1e-8)


def test_irfft_gradient_of_a_complex_spectrum_follows_the_engines_convention(rng) -> None:
    # dL/dRe - i dL/dIm, including the imaginary parts irfft ignores (frequency 0 and n/2).
    spectrum = complex_normal(rng, (5,))
    weights = rng.standard_normal(8)

    def loss(z):
        return anp.sum(weights * anp.fft.irfft(z)) + anp.sum(anp.fft.irfft(z) ** 2)

    computed = grad(loss)(spectrum)
    assert computed.shape == (5,)
    np.testing.assert_allclose(computed, numerical_complex_grad(loss, spectrum), rtol=1e-7, atol=1e-8)
    assert computed[0].imag == 0.0 and computed[-1].imag == 0.0


def test_transforms_compute_numpys_values_inside_a_trace(rng) -> None:
    x = rng.standard_normal((3, 8))
    seen = {}

    def record(v):
        seen["rfft"] = anp.fft.rfft(v, axis=0)
        seen["fft2"] = anp.fft.fft2(v)
        seen["freq"] = anp.fft.rfftfreq(8)
        return anp.sum(anp.abs(seen["rfft"])) + anp.sum(anp.real(seen["fft2"]))

    grad(record)(x)
    from ad_core.extend import getval

    np.testing.assert_array_equal(getval(seen["rfft"]), np.fft.rfft(x, axis=0))
    np.testing.assert_array_equal(getval(seen["fft2"]), np.fft.fft2(x))
    np.testing.assert_array_equal(seen["freq"], np.fft.rfftfreq(8))


@pytest.mark.parametrize("name", ["hfft", "ihfft"])
def test_fft_function_without_a_rule_fails_only_when_differentiated(name: str, rng) -> None:
    function = getattr(anp.fft, name)
    x = rng.standard_normal(6)
    with pytest.raises(NotImplementedError, match=rf"no VJP rule is defined for {name} with respect to arg"):
        grad(lambda v: anp.sum(anp.abs(function(v))))(x)
    with pytest.raises(NotImplementedError, match=rf"no JVP rule is defined for {name} with respect to arg"):
        make_jvp(lambda v: anp.sum(anp.abs(function(v))))(x)(x)
    np.testing.assert_array_equal(function(x), getattr(np.fft, name)(x))


def test_repeated_axes_raise_in_reverse_mode(rng) -> None:
    x = rng.standard_normal((4, 4))
    with pytest.raises(NotImplementedError, match=r"fftn with a repeated axis"):
        grad(lambda v: anp.sum(anp.real(anp.fft.fftn(v, axes=(0, 0)))))(x)


def test_the_traced_namespace_replaces_numpys() -> None:
    assert anp.fft is not np.fft
    assert anp.fft.fft.vjps and anp.fft.fft.jvps
    assert set(anp.fft.__all__) >= {"fft", "ifft", "rfft", "irfft", "fftshift", "hfft", "fftfreq"}
