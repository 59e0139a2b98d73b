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
    "integer-array-2d-rows": lambda x: x[np.array([[2, 0], [2, -1], [0, 0]])],
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


@pytest.mark.parametrize(
    "name", ["repeated-rows", "integer-array-2d-rows", "paired-integer-arrays", "boolean-mask", "take-axis"]
)
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


def scatter_add_reference(g: np.ndarray, index: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The textbook adjoint of `A[index]`: zeros, then `np.add.at` with the index as given."""
    result = np.zeros(shape, np.result_type(g))
    np.add.at(result, index, g)
    return result


# untake has a fast path for whole rows picked by one integer array (an embedding lookup): flat
# positions instead of rows. It must give the bits of np.add.at: same sums, in the same order.
ROW_INDEXES = {
    "embedding-windows": np.array([[3, 1, 3], [1, 3, 4], [3, 4, 0], [4, 0, 0]]),
    "negative-rows": np.array([[-1, 4], [0, -5], [-1, -1]]),
    "one-dimensional": np.array([2, 2, 2, 0, -3]),
    "empty": np.zeros((0, 2), dtype=np.intp),
}


@pytest.mark.parametrize("table_shape", [(5, 3), (5, 2, 3)], ids=["5x3", "5x2x3"])
@pytest.mark.parametrize("name", list(ROW_INDEXES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_untake_of_integer_rows_has_the_bits_of_add_at(name: str, table_shape, dtype, rng) -> None:
    index = ROW_INDEXES[name]
    g = rng.standard_normal(index.shape + table_shape[1:]).astype(dtype)
    if np.dtype(dtype).kind == "c":
        g = g + 1j * rng.standard_normal(g.shape)
    computed = anp.untake(g, index, table_shape)
    assert computed.dtype == g.dtype
    np.testing.assert_array_equal(computed, scatter_add_reference(g, index, table_shape), strict=True)


@pytest.mark.parametrize("index_dtype", [np.intp, np.int32, np.uint8], ids=lambda d: np.dtype(d).name)
def test_embedding_gradient_is_the_same_for_every_integer_index_dtype(index_dtype, rng) -> None:
    # Only intp indices take the flat fast path; the others go through np.add.at as given.
    table = rng.standard_normal((6, 4))
    windows = np.array([[0, 5, 0], [5, 5, 1]]).astype(index_dtype)
    weights = rng.standard_normal((2, 3, 4))
    gradient = grad(lambda t: anp.sum(weights * t[windows]))(table)
    expected = scatter_add_reference(weights, windows.astype(np.intp), table.shape)
    np.testing.assert_array_equal(gradient, expected)


def test_select_with_traced_choices_and_default(rng) -> None:
    # `select` took a list of traced arrays as NumPy's own function and raised TypeError.
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    conditions = [x > 0.5, x < -0.5, x > 0.0]  # the first true condition wins where they overlap
    result = anp.select(conditions, [x, 2.0 * y, x * y], default=y)
    expected = np.select(conditions, [x, 2.0 * y, x * y], default=y)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)
    check_grads(lambda a, b: anp.select(conditions, [a, 2.0 * b, a * b], default=b))(x, y)
