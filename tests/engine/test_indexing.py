"""Indexing and take: the VJP scatters the cotangent back, and repeated indices accumulate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad
from ad_core.test_util import check_grads

from ._oracle import allow_constant_derivatives, check_both_modes, numerical_grad

MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])

INDEXERS: dict[str, Callable[[Any], Any]] = {
    "integer": lambda x: x[1],
    "negative-integer": lambda x: x[-1],
    "two-integers": lambda x: x[2, 3],
    "slice": lambda x: x[1:],
    "strided-slice": lambda x: x[:, ::2],
    "negative-step": lambda x: x[::-1, 1:3],
    "ellipsis": lambda x: x[..., 0],
    "newaxis": lambda x: x[None, :, 1],
    "integer-array-rows": lambda x: x[np.array([2, 0])],
    "repeated-rows": lambda x: x[[0, 0, 2, 0]],
    "paired-integer-arrays": lambda x: x[[0, 1, 1, 2], [3, 3, 0, 3]],
    "array-and-slice": lambda x: x[[2, 2], 1:],
    "boolean-mask": lambda x: x[MASK],
    "boolean-row-mask": lambda x: x[np.array([True, False, True])],
    "take-flat-repeated": lambda x: anp.take(x, [5, 5, 0, 11]),
    "take-axis": lambda x: anp.take(x, [3, 0, 3], axis=1),
    "take-2d-indices": lambda x: anp.take(x, np.array([[0, 1], [1, 1]]), axis=0),
}


@pytest.mark.parametrize("name", list(INDEXERS))
def test_indexing_matches_finite_differences(name: str, rng) -> None:
    check_both_modes(INDEXERS[name], [rng.standard_normal((3, 4))], rng)


@pytest.mark.parametrize("name", ["repeated-rows", "paired-integer-arrays", "boolean-mask", "take-axis"])
@allow_constant_derivatives
def test_indexing_passes_check_grads_to_second_order(name: str, rng) -> None:
    check_grads(lambda x: INDEXERS[name](x) ** 2, modes=("fwd", "rev"), order=2)(rng.standard_normal((3, 4)))


def test_repeated_index_accumulates_instead_of_overwriting() -> None:
    # Entry 0 is read three times, entry 2 once: a "last write wins" scatter would give 1 at 0.
    indices = [0, 0, 2, 0]
    gradient = grad(lambda v: anp.sum(v[indices]))(np.zeros(4))
    np.testing.assert_array_equal(gradient, np.bincount(indices, minlength=4).astype(float))


def test_repeated_take_accumulates_weighted_cotangents(rng) -> None:
    x = rng.standard_normal(5)
    weights = rng.standard_normal(4)
    indices = np.array([1, 3, 1, 1])

    def loss(v):
        return anp.sum(weights * anp.take(v, indices))

    computed = grad(loss)(x)
    assert computed.shape == x.shape
    np.testing.assert_allclose(computed, numerical_grad(loss, [x]), rtol=1e-9, atol=1e-12)


def test_index_into_scalar_result_keeps_float_gradient(rng) -> None:
    x = rng.standard_normal((3, 4))
    gradient = grad(lambda v: v[1, 2] * v[1, 2])(x)
    expected = np.zeros_like(x)
    expected[1, 2] = 2 * x[1, 2]
    assert gradient.dtype == np.float64
    np.testing.assert_allclose(gradient, expected, rtol=1e-12)
