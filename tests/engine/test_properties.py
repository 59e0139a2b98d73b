"""Property tests: for random broadcast-compatible shapes, gradients of elementwise binary
functions have each input's shape and equal the sum-reduction of the broadcast cotangent.

The reduction is `_oracle.reduce_to_shape`, written independently of the engine's unbroadcast.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import ad_core.numpy as anp
from ad_core import grad, make_jvp, make_vjp
from ad_core.extend import metadata, unbroadcast

from ._oracle import as_input, reduce_to_shape

# Bounded and derandomized: the same examples on every run, well inside the time budget.
PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)

shape_pairs = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def sample(seed: int, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0):
    return as_input(np.random.default_rng(seed).uniform(low, high, size=shape))


def element_count(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=int))


@PROPERTY_SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_add_gradient_counts_the_broadcast_copies(shapes, seed) -> None:
    (x_shape, y_shape), out_shape = shapes.input_shapes, shapes.result_shape
    x, y = sample(seed, x_shape), sample(seed + 1, y_shape)
    for argnum, shape in ((0, x_shape), (1, y_shape)):
        gradient = grad(lambda a, b: anp.sum(a + b), argnum=argnum)(x, y)
        assert np.shape(gradient) == shape
        copies = element_count(out_shape) // element_count(shape)
        np.testing.assert_array_equal(gradient, np.full(shape, float(copies)))


@PROPERTY_SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_multiply_gradient_is_the_other_factor_reduced(shapes, seed) -> None:
    (x_shape, y_shape), out_shape = shapes.input_shapes, shapes.result_shape
    x, y = sample(seed, x_shape), sample(seed + 1, y_shape)
    d_dx = grad(lambda a, b: anp.sum(a * b), argnum=0)(x, y)
    d_dy = grad(lambda a, b: anp.sum(a * b), argnum=1)(x, y)
    assert np.shape(d_dx) == x_shape
    assert np.shape(d_dy) == y_shape
    expected_x = reduce_to_shape(np.broadcast_to(y, out_shape), x_shape)
    expected_y = reduce_to_shape(np.broadcast_to(x, out_shape), y_shape)
    np.testing.assert_allclose(d_dx, expected_x, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(d_dy, expected_y, rtol=1e-13, atol=1e-13)


# f, df/dx, df/dy, and the interval the second argument is drawn from.
ELEMENTWISE: dict[str, tuple[Callable, Callable, Callable, tuple[float, float]]] = {
    "subtract": (operator.sub, lambda x, y: np.ones_like(x * y), lambda x, y: -np.ones_like(x * y), (-2, 2)),
    "divide": (operator.truediv, lambda x, y: 1 / y + 0 * x, lambda x, y: -x / y**2, (0.5, 2)),
    "power": (
        lambda x, y: anp.abs(x) ** y,
        lambda x, y: y * np.abs(x) ** (y - 1) * np.sign(x),
        lambda x, y: np.abs(x) ** y * np.log(np.abs(x)),
        (-2, 2),
    ),
    "arctan2": (anp.arctan2, lambda x, y: y / (x**2 + y**2), lambda x, y: -x / (x**2 + y**2), (0.5, 2)),
    "logaddexp": (
        anp.logaddexp,
        lambda x, y: 1 / (1 + np.exp(y - x)),
        lambda x, y: 1 / (1 + np.exp(x - y)),
        (-2, 2),
    ),
}


@PROPERTY_SETTINGS
@given(shapes=shape_pairs, seed=seeds, name=st.sampled_from(sorted(ELEMENTWISE)))
def test_weighted_elementwise_gradient_is_the_reduced_local_derivative(shapes, seed, name) -> None:
    fun, d_first, d_second, (low, high) = ELEMENTWISE[name]
    (x_shape, y_shape), out_shape = shapes.input_shapes, shapes.result_shape
    # |x| >= 0.5 keeps abs(x) ** y away from its kink and its pole.
    magnitudes = np.random.default_rng(seed).uniform(0.5, 2.0, size=x_shape)
    signs = np.random.default_rng(seed + 2).choice([-1.0, 1.0], size=x_shape)
    x = as_input(magnitudes * signs)
    y = sample(seed + 1, y_shape, low, high)
    cotangent = np.random.default_rng(seed + 3).standard_normal(out_shape)

    def loss(a, b):
        return anp.sum(cotangent * fun(a, b))

    xb, yb = np.broadcast_to(x, out_shape), np.broadcast_to(y, out_shape)
    for argnum, shape, local in ((0, x_shape, d_first), (1, y_shape, d_second)):
        gradient = grad(loss, argnum=argnum)(x, y)
        assert np.shape(gradient) == shape
        expected = reduce_to_shape(cotangent * local(xb, yb), shape)
        np.testing.assert_allclose(gradient, expected, rtol=1e-10, atol=1e-12)


@PROPERTY_SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_forward_mode_broadcasts_the_tangent_to_the_output(shapes, seed) -> None:
    (x_shape, y_shape), out_shape = shapes.input_shapes, shapes.result_shape
    x, y = sample(seed, x_shape), sample(seed + 1, y_shape)
    tangent = sample(seed + 2, x_shape)
    _, computed = make_jvp(lambda a, b: a * b, 0)(x, y)(tangent)
    assert np.shape(computed) == out_shape
    np.testing.assert_allclose(computed, np.broadcast_to(tangent, out_shape) * y, rtol=1e-14)


@PROPERTY_SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_unbroadcast_equals_the_textbook_reduction(shapes, seed) -> None:
    (x_shape, _), out_shape = shapes.input_shapes, shapes.result_shape
    cotangent = np.random.default_rng(seed).standard_normal(out_shape)
    target = np.zeros(x_shape)
    reduced = unbroadcast(cotangent, metadata(target))
    assert np.shape(reduced) == x_shape
    np.testing.assert_allclose(reduced, reduce_to_shape(cotangent, x_shape), rtol=1e-14, atol=1e-14)


@PROPERTY_SETTINGS
@given(shapes=shape_pairs, seed=seeds)
def test_reverse_and_forward_mode_agree_on_a_broadcast_product(shapes, seed) -> None:
    # <J^T u, v> = <u, J v>: the VJP and the JVP are transposes of one linear map.
    (x_shape, y_shape), out_shape = shapes.input_shapes, shapes.result_shape
    x, y = sample(seed, x_shape), sample(seed + 1, y_shape)
    u = np.random.default_rng(seed + 2).standard_normal(out_shape)
    v = sample(seed + 3, x_shape)

    def fun(a):
        return anp.sin(a) * y + a / (2.0 + y**2)

    vjp, _ = make_vjp(fun)(x)
    _, jvp = make_jvp(fun)(x)(v)
    np.testing.assert_allclose(np.sum(vjp(u) * v), np.sum(u * jvp), rtol=1e-12, atol=1e-12)
