"""Products and contractions: dot, matmul/@, tensordot, einsum, outer, inner, trace, diag, triu/tril."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, make_jvp
from ad_core.test_util import check_grads

from ._oracle import allow_constant_derivatives, check_both_modes

RIGHT_FACTOR = np.linspace(-1.0, 1.0, 12).reshape(3, 4)


class ProductCase(NamedTuple):
    name: str
    fun: Callable[..., Any]
    shapes: tuple[tuple[int, ...], ...]


PRODUCT_CASES = [
    ProductCase("dot-vector-vector", anp.dot, ((4,), (4,))),
    # kron had a JVP but no VJP (found by HIPS/autograd's own test suite).
    ProductCase("kron-matrices", anp.kron, ((2, 3), (4, 2))),
    ProductCase("kron-vector-matrix", anp.kron, ((3,), (2, 2))),
    ProductCase("kron-3d", anp.kron, ((2, 1, 2), (3, 2, 1))),
    ProductCase("dot-matrix-vector", anp.dot, ((3, 4), (4,))),
    ProductCase("dot-vector-matrix", anp.dot, ((3,), (3, 4))),
    ProductCase("dot-matrix-matrix", anp.dot, ((2, 3), (3, 4))),
    ProductCase("dot-scalar-matrix", anp.dot, ((), (3, 4))),
    ProductCase("dot-3d-matrix", anp.dot, ((2, 3, 4), (4, 2))),
    # The method lives on the traced value, so only that argument is differentiated here.
    ProductCase("dot-method", lambda a: a.dot(RIGHT_FACTOR), ((2, 3),)),
    ProductCase("matmul-matrix-matrix", anp.matmul, ((2, 3), (3, 4))),
    ProductCase("matmul-vector-matrix", anp.matmul, ((3,), (3, 4))),
    ProductCase("matmul-matrix-vector", anp.matmul, ((3, 4), (4,))),
    ProductCase("matmul-batched", anp.matmul, ((2, 3, 4), (2, 4, 2))),
    ProductCase("matmul-batch-broadcast", anp.matmul, ((2, 3, 4), (4, 2))),
    ProductCase("matmul-batch-broadcast-size-one", anp.matmul, ((1, 3, 4), (2, 4, 2))),
    ProductCase("at-operator", operator.matmul, ((2, 3), (3, 4))),
    ProductCase("at-operator-batched", operator.matmul, ((2, 2, 3), (3, 4))),
    ProductCase("tensordot-axes-1", lambda a, b: anp.tensordot(a, b, axes=1), ((2, 3), (3, 4))),
    ProductCase("tensordot-axes-2", lambda a, b: anp.tensordot(a, b, axes=2), ((2, 3, 4), (3, 4, 2))),
    ProductCase("tensordot-axes-0", lambda a, b: anp.tensordot(a, b, axes=0), ((2, 3), (4,))),
    ProductCase(
        "tensordot-axes-pairs",
        lambda a, b: anp.tensordot(a, b, axes=([0, 2], [1, 0])),
        ((2, 3, 4), (4, 2, 3)),
    ),
    ProductCase("einsum-matmul", lambda a, b: anp.einsum("ij,jk->ik", a, b), ((2, 3), (3, 4))),
    ProductCase("einsum-batched", lambda a, b: anp.einsum("bij,bjk->bik", a, b), ((2, 3, 4), (2, 4, 2))),
    ProductCase("einsum-outer", lambda a, b: anp.einsum("i,j->ij", a, b), ((3,), (4,))),
    ProductCase("einsum-repeated-operand-index", lambda a, b: anp.einsum("ij,ij->i", a, b), ((3, 4), (3, 4))),
    ProductCase("einsum-implicit-output", lambda a, b: anp.einsum("ij,jk", a, b), ((2, 3), (3, 4))),
    ProductCase("einsum-ellipsis", lambda a, b: anp.einsum("...ij,jk->...ik", a, b), ((2, 2, 3), (3, 4))),
    ProductCase("einsum-trace", lambda a: anp.einsum("ii->", a), ((3, 3),)),
    ProductCase("einsum-diagonal", lambda a: anp.einsum("ii->i", a), ((3, 3),)),
    ProductCase("einsum-batched-trace", lambda a: anp.einsum("bii->b", a), ((2, 3, 3),)),
    ProductCase("einsum-transpose", lambda a: anp.einsum("ij->ji", a), ((3, 4),)),
    ProductCase(
        "einsum-three-operands", lambda a, b, c: anp.einsum("i,ij,j->", a, b, c), ((3,), (3, 4), (4,))
    ),
    ProductCase("outer", anp.outer, ((3,), (4,))),
    ProductCase("outer-flattens-matrices", anp.outer, ((2, 2), (3,))),
    ProductCase("inner-vectors", anp.inner, ((4,), (4,))),
    ProductCase("inner-matrices", anp.inner, ((2, 4), (3, 4))),
    ProductCase("trace", anp.trace, ((3, 3),)),
    ProductCase("trace-offset", lambda a: anp.trace(a, offset=1), ((3, 4),)),
    ProductCase("trace-3d", anp.trace, ((3, 3, 2),)),
    ProductCase("diag-extract", anp.diag, ((3, 4),)),
    ProductCase("diag-extract-offset", lambda a: anp.diag(a, k=-1), ((4, 4),)),
    ProductCase("diag-build", anp.diag, ((4,),)),
    ProductCase("diag-build-offset", lambda v: anp.diag(v, k=1), ((3,),)),
    ProductCase("diagonal", anp.diagonal, ((3, 4),)),
    ProductCase("diagonal-3d", anp.diagonal, ((3, 4, 2),)),
    ProductCase("diagonal-3d-last-axes", lambda a: anp.diagonal(a, axis1=1, axis2=2), ((2, 3, 4),)),
    ProductCase(
        "diagonal-3d-axes-reversed-offset", lambda a: anp.diagonal(a, 1, axis1=2, axis2=0), ((3, 2, 4),)
    ),
    ProductCase(
        "diagonal-4d-negative-axes", lambda a: anp.diagonal(a, -1, axis1=-1, axis2=1), ((2, 3, 2, 4),)
    ),
    ProductCase("triu", anp.triu, ((4, 4),)),
    ProductCase("triu-offset", lambda a: anp.triu(a, k=1), ((3, 4),)),
    ProductCase("tril", anp.tril, ((4, 4),)),
    ProductCase("tril-offset", lambda a: anp.tril(a, k=-1), ((3, 4),)),
]


SECOND_ORDER_CASES = {
    "dot-matrix-matrix",
    "matmul-batch-broadcast",
    "tensordot-axes-pairs",
    "einsum-batched",
    "outer",
    "inner-matrices",
    "trace",
    "diag-build",
    "diagonal-3d-axes-reversed-offset",
    "triu-offset",
}


@pytest.mark.parametrize("case", PRODUCT_CASES, ids=lambda case: case.name)
def test_product_matches_finite_differences(case: ProductCase, rng) -> None:
    args = [rng.standard_normal(shape) if shape else float(rng.standard_normal()) for shape in case.shapes]
    check_both_modes(case.fun, args, rng)


@pytest.mark.parametrize(
    "case",
    [case for case in PRODUCT_CASES if case.name in SECOND_ORDER_CASES],
    ids=lambda case: case.name,
)
@allow_constant_derivatives
def test_product_passes_check_grads_to_second_order(case: ProductCase, rng) -> None:
    args = [rng.standard_normal(shape) for shape in case.shapes]
    for argnum in range(len(args)):
        check_grads(case.fun, argnum=argnum, modes=("fwd", "rev"), order=2)(*args)


def test_matmul_gradient_is_the_textbook_formula(rng) -> None:
    # For L = sum(G * (A @ B)): dL/dA = G @ B.T and dL/dB = A.T @ G, computed here with plain NumPy.
    from ad_core import grad

    a, b, g = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    d_da = grad(lambda x, y: anp.sum(g * (x @ y)), argnum=0)(a, b)
    d_db = grad(lambda x, y: anp.sum(g * (x @ y)), argnum=1)(a, b)
    assert d_da.shape == a.shape
    assert d_db.shape == b.shape
    np.testing.assert_allclose(d_da, g @ b.T, rtol=1e-12)
    np.testing.assert_allclose(d_db, a.T @ g, rtol=1e-12)


def test_einsum_of_more_operands_than_rule_tables_used_to_hold(rng) -> None:
    """Rules registered for every argument reach operand 40 too (they used to stop at 32)."""
    vectors = [rng.standard_normal(3) for _ in range(40)]
    spec = ",".join("i" for _ in vectors) + "->"

    def product_of_all(last):
        return anp.einsum(spec, *vectors[:-1], last)

    gradient = grad(product_of_all)(vectors[-1])
    assert gradient.shape == (3,)
    np.testing.assert_allclose(gradient, np.prod(vectors[:-1], axis=0), rtol=1e-12)
    tangent = make_jvp(product_of_all)(vectors[-1])(np.ones(3))[1]
    assert np.isclose(tangent, np.sum(np.prod(vectors[:-1], axis=0)), rtol=1e-12)


def test_einsum_in_interleaved_form_in_both_modes(rng) -> None:
    # `einsum(x, [0, 1], [1, 0])`: the rule read operands as if a subscript string came first.
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    transposed = anp.einsum(x, [0, 1], [1, 0])
    assert transposed.shape == (3, 2)
    np.testing.assert_array_equal(transposed, x.T)
    gradient = grad(lambda a: anp.sum(anp.einsum(a, [0, 1], [1, 0]) * np.arange(6.0).reshape(3, 2)))(x)
    assert gradient.shape == x.shape
    np.testing.assert_array_equal(gradient, np.arange(6.0).reshape(3, 2).T)
    check_grads(lambda a: anp.einsum(a, [0, 1], [1, 0]))(x)
    check_grads(lambda a, b: anp.einsum(a, [0, 1], b, [1, 2], [0, 2]))(x, y)
    check_grads(lambda a, b: anp.einsum(a, [0, 1], b, [1, 2]))(x, y)
    check_grads(lambda a: anp.einsum(a, [0, 0]))(rng.standard_normal((3, 3)))


@pytest.mark.parametrize(
    "shapes, options",
    [
        (((3,), (3,)), {}),
        (((4, 3), (3,)), {}),
        (((3, 4), (4, 3)), {"axisa": 0, "axisc": 0}),
        (((3, 2), (3, 2)), {"axis": 0}),
        (((2, 1, 3), (4, 3)), {}),
    ],
    ids=["vectors", "broadcast-b", "axisa-axisc", "axis", "broadcast-both"],
)
def test_cross_matches_numpy_and_carries_gradients(shapes, options, rng) -> None:
    a, b = (rng.standard_normal(shape) for shape in shapes)
    result = anp.cross(a, b, **options)
    expected = np.cross(a, b, **options)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-14)
    check_grads(lambda u, v: anp.cross(u, v, **options))(a, b)


def test_dot_and_matmul_accept_a_plain_list_as_the_other_operand(rng) -> None:
    """The rules read the other operand's ndim; a list has none of its own, so NumPy's view
    of it is used (this raised inside `metadata` before)."""
    a = rng.standard_normal((3, 2))
    weights = [0.5, -2.0]
    rows = [[1.0, 2.0, 3.0]]
    for product in (anp.dot, anp.matmul):
        gradient = grad(lambda a, product=product: anp.sum(product(a, weights) ** 2))(a)
        assert gradient.shape == a.shape
        np.testing.assert_allclose(gradient, 2 * np.outer(a @ weights, weights), rtol=1e-12)
        gradient = grad(lambda a, product=product: anp.sum(product(rows, a) ** 2))(a)
        assert gradient.shape == a.shape
        np.testing.assert_allclose(gradient, 2 * np.outer(rows[0], np.array(rows) @ a), rtol=1e-12)
