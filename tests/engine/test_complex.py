"""Complex numbers end to end: real, imag, conj, angle, abs, holomorphic_grad, and unbroadcast
dropping the imaginary part when the target is real.

Convention (HIPS/autograd's): for a real loss L of z = x + i y, grad returns dL/dx - i dL/dy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, holomorphic_grad
from ad_core.test_util import check_grads

from ._oracle import (
    allow_constant_derivatives,
    check_both_modes,
    directional_derivative,
    numerical_complex_grad,
    numerical_grad,
    shape_id,
)

COMPLEX_SHAPES = [(), (3,), (2, 3)]


def complex_sample(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    """Entries with modulus in [0.5, 2], away from 0 where abs and angle have no derivative."""
    modulus = rng.uniform(0.5, 2.0, size=shape)
    phase = rng.uniform(-3.0, 3.0, size=shape)
    values = modulus * np.exp(1j * phase)
    return values.item() if values.ndim == 0 else values


# Each builds a real scalar loss from a complex input, through one rule under test.
REAL_LOSSES: dict[str, Callable[[np.ndarray, Any], Any]] = {
    "real": lambda z, w: anp.sum(w * anp.real(z)),
    "imag": lambda z, w: anp.sum(w * anp.imag(z)),
    "conj": lambda z, w: anp.sum(anp.real(w * anp.conj(z) * (1.0 + 2.0j))),
    "angle": lambda z, w: anp.sum(w * anp.angle(z)),
    "abs": lambda z, w: anp.sum(w * anp.abs(z)),
    "abs-squared": lambda z, w: anp.sum(w * anp.abs(z) ** 2),
    "exp-then-real": lambda z, w: anp.sum(w * anp.real(anp.exp(z))),
    "product-then-imag": lambda z, w: anp.sum(w * anp.imag(z * z * (0.5 - 1.5j))),
    "division-then-abs": lambda z, w: anp.sum(w * anp.abs(1.0 / (z + 3.0))),
    "matmul-then-abs-squared": lambda z, w: anp.sum(
        anp.abs(anp.dot(anp.ravel(z), anp.ones((int(np.size(z)), 2)) * (1 + 1j))) ** 2
    ),
}


@pytest.mark.parametrize("shape", COMPLEX_SHAPES, ids=shape_id)
@pytest.mark.parametrize("name", list(REAL_LOSSES))
def test_real_loss_of_complex_input_matches_finite_differences(name: str, shape, rng) -> None:
    z = complex_sample(rng, shape)
    weights = rng.standard_normal(shape)

    def loss(v):
        return REAL_LOSSES[name](v, weights)

    computed = grad(loss)(z)
    assert np.shape(computed) == np.shape(z)
    assert np.iscomplexobj(computed), "the gradient of a complex input must be complex"
    np.testing.assert_allclose(computed, numerical_complex_grad(loss, z), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("name", ["real", "imag", "conj", "angle", "abs"])
@allow_constant_derivatives
def test_complex_rule_passes_check_grads(name: str, rng) -> None:
    weights = rng.standard_normal(3)
    check_grads(lambda z: REAL_LOSSES[name](z, weights), modes=("fwd", "rev"), order=2)(
        complex_sample(rng, (3,))
    )


@pytest.mark.parametrize(
    "function,expected_derivative",
    [
        (anp.real, lambda x: np.ones_like(x)),
        (anp.imag, np.zeros_like),
        (anp.conj, lambda x: np.ones_like(x)),
    ],
    ids=["real", "imag", "conj"],
)
def test_complex_parts_of_a_real_input_have_real_gradients(function, expected_derivative, rng) -> None:
    x = rng.standard_normal(4)
    computed = grad(lambda v: anp.sum(function(v) + v * 0.0))(x)
    assert computed.dtype == np.float64
    np.testing.assert_array_equal(computed, expected_derivative(x))


@pytest.mark.parametrize(
    "real_shape,complex_shape",
    [((), (3,)), ((3, 1), (1, 4)), ((4,), (2, 3, 4))],
    ids=["scalar-with-3", "3x1-with-1x4", "4-with-2x3x4"],
)
def test_unbroadcast_drops_the_imaginary_part_for_a_real_target(real_shape, complex_shape, rng) -> None:
    x = rng.standard_normal(real_shape) if real_shape else float(rng.standard_normal())
    c = complex_sample(rng, complex_shape)

    def loss(v):
        return anp.sum(anp.abs(v * c + 1.0) ** 2)

    computed = grad(loss)(x)
    assert np.shape(computed) == real_shape
    assert not np.iscomplexobj(computed), f"real input got a complex gradient: {computed!r}"
    np.testing.assert_allclose(computed, numerical_grad(loss, [x]), rtol=1e-7, atol=1e-8)


@allow_constant_derivatives
def test_complex_valued_function_passes_check_grads(rng) -> None:
    z = complex_sample(rng, (2, 3))
    w = complex_sample(rng, (3,))
    for argnum in (0, 1):
        check_grads(lambda a, b: anp.sin(a) * b + a**2, argnum=argnum, modes=("fwd", "rev"), order=2)(z, w)


@pytest.mark.parametrize(
    "function",
    [lambda z: z**2, anp.sin, anp.exp, lambda z: 1.0 / (z + 3.0)],
    ids=["square", "sin", "exp", "reciprocal-shift"],
)
def test_holomorphic_grad_is_the_complex_derivative(function, rng) -> None:
    z = complex_sample(rng, ())
    # A holomorphic f has f'(z) = df/dx, the derivative along the real axis.
    expected = directional_derivative(function, [z], 0, np.ones((), dtype=complex))
    np.testing.assert_allclose(holomorphic_grad(function)(z), expected, rtol=1e-8)


def test_real_function_through_complex_intermediates_matches_finite_differences(rng) -> None:
    c = complex_sample(rng, (3,))

    def through_complex(v):
        return anp.real(anp.exp(1j * v) * c) + anp.abs(v * c) + anp.imag(v * c) ** 2

    check_both_modes(through_complex, [rng.standard_normal((3,))], rng)
