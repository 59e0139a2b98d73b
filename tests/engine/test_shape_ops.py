"""Operations that only move, copy or regroup entries: their VJPs move cotangents back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, make_jvp
from ad_core.test_util import check_grads

from ._oracle import allow_constant_derivatives, check_both_modes, check_jvp_against_fd


class ShapeCase(NamedTuple):
    name: str
    fun: Callable[..., Any]
    shapes: tuple[tuple[int, ...], ...]


SHAPE_CASES = [
    ShapeCase("transpose", anp.transpose, ((2, 3, 4),)),
    ShapeCase("transpose-axes", lambda x: anp.transpose(x, (1, 2, 0)), ((2, 3, 4),)),
    ShapeCase("transpose-method", lambda x: x.transpose(2, 0, 1), ((2, 3, 4),)),
    ShapeCase("T-attribute", lambda x: x.T, ((3, 4),)),
    ShapeCase("swapaxes", lambda x: anp.swapaxes(x, 0, 2), ((2, 3, 4),)),
    ShapeCase("moveaxis", lambda x: anp.moveaxis(x, 0, -1), ((2, 3, 4),)),
    ShapeCase("moveaxis-several", lambda x: anp.moveaxis(x, [0, 1], [2, 0]), ((2, 3, 4),)),
    ShapeCase("reshape", lambda x: anp.reshape(x, (4, 6)), ((2, 3, 4),)),
    ShapeCase("reshape-minus-one", lambda x: anp.reshape(x, (-1, 2)), ((3, 4),)),
    ShapeCase("reshape-method", lambda x: x.reshape((6, 2)), ((3, 4),)),
    ShapeCase("reshape-method-varargs", lambda x: x.reshape(2, 6), ((3, 4),)),
    ShapeCase("ravel", anp.ravel, ((2, 3, 4),)),
    ShapeCase("squeeze", anp.squeeze, ((2, 1, 4),)),
    ShapeCase("squeeze-axis", lambda x: anp.squeeze(x, axis=0), ((1, 4),)),
    ShapeCase("squeeze-method", lambda x: x.squeeze(), ((3, 1),)),
    ShapeCase("expand_dims", lambda x: anp.expand_dims(x, 1), ((3, 4),)),
    ShapeCase("expand_dims-negative", lambda x: anp.expand_dims(x, -1), ((4,),)),
    ShapeCase("broadcast_to", lambda x: anp.broadcast_to(x, (2, 3, 4)), ((3, 1),)),
    ShapeCase("broadcast_to-from-scalar", lambda x: anp.broadcast_to(x, (3, 4)), ((),)),
    ShapeCase("repeat-flat", lambda x: anp.repeat(x, 2), ((3, 4),)),
    ShapeCase("repeat-axis", lambda x: anp.repeat(x, 3, axis=1), ((3, 4),)),
    ShapeCase("repeat-scalar", lambda x: anp.repeat(x, 3), ((),)),
    ShapeCase("repeat-counts-axis", lambda x: anp.repeat(x, [2, 0, 1, 3], axis=1), ((3, 4),)),
    ShapeCase("repeat-counts-flat", lambda x: anp.repeat(x, [1, 0, 2, 1, 3, 1]), ((2, 3),)),
    ShapeCase("tile", lambda x: anp.tile(x, 2), ((3, 4),)),
    ShapeCase("tile-grow-rank", lambda x: anp.tile(x, (2, 1, 3)), ((3, 4),)),
    ShapeCase("concatenate-axis0", lambda a, b: anp.concatenate([a, b], axis=0), ((2, 4), (3, 4))),
    ShapeCase("concatenate-axis1", lambda a, b: anp.concatenate((a, b), axis=1), ((3, 1), (3, 4))),
    ShapeCase("concatenate-three", lambda a, b, c: anp.concatenate([a, b, c]), ((2,), (4,), (1,))),
    # More arrays than one node has argument rules for (31): concatenated in groups.
    ShapeCase("concatenate-many", lambda a, b: anp.concatenate([a, b] * 40, axis=1), ((2, 1), (2, 3))),
    ShapeCase("stack-many", lambda a: anp.stack([a * k for k in range(70)]), ((3,),)),
    ShapeCase("r_-vectors-and-a-range", lambda a, b: anp.r_[a, b, 1:4, 2.5], ((3,), (2,))),
    ShapeCase("r_-matrices", lambda a, b: anp.r_[a, b], ((2, 3), (1, 3))),
    ShapeCase("c_-vectors-as-columns", lambda a, b: anp.c_[a, b, a], ((3,), (3,))),
    ShapeCase("c_-matrix-and-vector", lambda a, b: anp.c_[a, b], ((3, 2), (3,))),
    # `full` broadcasts its fill value: it was treated as a constant, so gradients were lost.
    ShapeCase("full-scalar-fill", lambda v: anp.full((3, 2), v), ((),)),
    ShapeCase("full-broadcast-fill", lambda v: anp.full((2, 3), v) ** 2, ((3,),)),
    ShapeCase("array-of-boxes-and-constants", lambda a, b: anp.array([a, 2.0 * b, 1.5]), ((), ())),
    ShapeCase("stack", lambda a, b: anp.stack([a, b]), ((3, 4), (3, 4))),
    ShapeCase("stack-last-axis", lambda a, b: anp.stack([a, b], axis=-1), ((3, 4), (3, 4))),
    ShapeCase("vstack", lambda a, b: anp.vstack([a, b]), ((4,), (2, 4))),
    ShapeCase("hstack", lambda a, b: anp.hstack([a, b]), ((3,), (4,))),
    ShapeCase("split-take-middle", lambda x: anp.split(x, 3)[1], ((6, 2),)),
    ShapeCase("split-axis1-indices", lambda x: anp.split(x, [1, 3], axis=1)[2], ((3, 4),)),
    ShapeCase("split-recombined", lambda x: anp.split(x, 2)[0] * anp.split(x, 2)[1], ((4, 3),)),
    ShapeCase("flip", lambda x: anp.flip(x, axis=1), ((3, 4),)),
    ShapeCase("roll", lambda x: anp.roll(x, 1, axis=0), ((3, 4),)),
    # Found by HIPS/autograd's own test suite: these had no rules (linspace was a constant).
    ShapeCase("flipud", anp.flipud, ((3, 4),)),
    ShapeCase("fliplr", anp.fliplr, ((3, 4),)),
    ShapeCase("rot90", anp.rot90, ((3, 4),)),
    ShapeCase("rot90-k-axes", lambda x: anp.rot90(x, 3, axes=(2, 0)), ((2, 3, 4),)),
    ShapeCase("rollaxis", lambda x: anp.rollaxis(x, 2), ((2, 3, 4),)),
    ShapeCase("rollaxis-start", lambda x: anp.rollaxis(x, 0, 2), ((2, 3, 4),)),
    ShapeCase("diff", anp.diff, ((3, 5),)),
    ShapeCase("diff-n2-axis0", lambda x: anp.diff(x, n=2, axis=0), ((5, 3),)),
    ShapeCase("diff-length-one", lambda x: anp.diff(x, axis=0), ((1, 3),)),
    ShapeCase("sort", anp.sort, ((6,),)),
    ShapeCase("sort-axis0", lambda x: anp.sort(x, axis=0), ((4, 3),)),
    ShapeCase("partition", lambda x: anp.partition(x, 2), ((3, 6),)),
    ShapeCase("linspace", lambda a, b: anp.linspace(a, b, 5), ((), ())),
    ShapeCase("linspace-no-endpoint", lambda a, b: anp.linspace(a, b, 4, endpoint=False), ((), ())),
    ShapeCase("linspace-arrays", lambda a, b: anp.linspace(a, b, 3), ((2,), (3, 1))),
    # Found by HIPS/autograd's test_numpy and test_systematic (issue 17): no rules in either mode.
    ShapeCase("pad-constant", lambda x: anp.pad(x, ((1, 2), (0, 3))), ((2, 3),)),
    ShapeCase("pad-one-width-constant-values", lambda x: anp.pad(x, 2, "constant", constant_values=1.5),
              ((3,),)),
    ShapeCase("gradient-1d", anp.gradient, ((6,),)),
    ShapeCase("gradient-every-axis", lambda x: anp.stack(anp.gradient(x)), ((4, 5),)),
    ShapeCase("gradient-spacing-edge-order-2", lambda x: anp.gradient(x, 0.5, axis=1, edge_order=2),
              ((3, 5),)),
    ShapeCase("gradient-axes-coordinates", lambda x: anp.stack(anp.gradient(
        x, np.array([0.0, 0.5, 1.5]), 2.0, axis=(0, -1))), ((3, 2, 4),)),
    ShapeCase("make_diagonal", lambda d: anp.make_diagonal(d, axis1=-1, axis2=-2), ((2, 4),)),
]


SECOND_ORDER_CASES = {
    "transpose-axes",
    "reshape",
    "broadcast_to",
    "repeat-axis",
    "tile-grow-rank",
    "concatenate-axis1",
    "concatenate-many",
    "full-broadcast-fill",
    "stack",
    "split-recombined",
    "rot90-k-axes",
    "diff-n2-axis0",
    "linspace-arrays",
    "pad-constant",
    "gradient-every-axis",
    "make_diagonal",
}


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda case: case.name)
def test_shape_op_matches_finite_differences(case: ShapeCase, rng) -> None:
    args = [rng.standard_normal(shape) if shape else float(rng.standard_normal()) for shape in case.shapes]
    check_both_modes(case.fun, args, rng)


@pytest.mark.parametrize(
    "case",
    [case for case in SHAPE_CASES if case.name in SECOND_ORDER_CASES],
    ids=lambda case: case.name,
)
@allow_constant_derivatives
def test_shape_op_passes_check_grads_to_second_order(case: ShapeCase, rng) -> None:
    args = [rng.standard_normal(shape) for shape in case.shapes]
    for argnum in range(len(args)):
        check_grads(case.fun, argnum=argnum, modes=("fwd", "rev"), order=2)(*args)


def test_repeat_accumulates_every_copy(rng) -> None:
    # Each entry is copied three times, so a cotangent of ones sums to 3 for each entry.
    x = rng.standard_normal((2, 3))
    copies = 3
    gradient = grad(lambda v: anp.sum(anp.repeat(v, copies, axis=0)))(x)
    np.testing.assert_array_equal(gradient, np.full(x.shape, float(copies)))


def test_broadcast_to_sums_back(rng) -> None:
    x = rng.standard_normal((3, 1))
    weights = rng.standard_normal((2, 3, 4))
    gradient = grad(lambda v: anp.sum(weights * anp.broadcast_to(v, weights.shape)))(x)
    np.testing.assert_allclose(gradient, weights.sum(axis=(0, 2)).reshape(3, 1), rtol=1e-12)


def test_array_of_plain_numbers_keeps_numpy_semantics() -> None:
    # `anp.array` took every list for one holding boxes (NumPy's `any` shadowed the builtin in
    # the wrapper), so `dtype` was dropped and an empty list raised.
    converted = anp.array([1, 2], dtype=float)
    assert converted.shape == (2,)
    assert converted.dtype == np.float64
    empty = anp.array([])
    assert empty.shape == (0,)
    assert empty.dtype == np.float64
    single = anp.array((1.5,), dtype=np.float32)
    assert single.shape == (1,)
    assert single.dtype == np.float32


def test_linspace_gradient_weights_start_and_stop() -> None:
    # linspace was wrapped as a constant, so these gradients were silently zero.
    d_start, d_stop = grad(lambda a, b: anp.sum(anp.linspace(a, b, 5) ** 2), argnum=(0, 1))(1.0, 3.0)
    points = np.linspace(1.0, 3.0, 5)
    weights = np.linspace(0.0, 1.0, 5)
    assert np.shape(d_start) == () and np.shape(d_stop) == ()
    expected = [np.sum(2 * points * (1 - weights)), np.sum(2 * points * weights)]
    np.testing.assert_allclose([d_start, d_stop], expected)


# Found by running HIPS/autograd's test_numpy: these had no rules (or no traced version).

SPLITS = {
    "array_split-3-of-7": (lambda a: anp.array_split(a, 3), np.array_split, (7,), (3,)),
    "array_split-axis1": (lambda a: anp.array_split(a, 4, axis=1), np.array_split, (2, 6, 2), (4, 1)),
    "array_split-indices": (
        lambda a: anp.array_split(a, [1, 3], axis=1), np.array_split, (2, 6, 2), ([1, 3], 1)),
    "vsplit": (lambda a: anp.vsplit(a, 2), np.vsplit, (4, 3), (2,)),
    "hsplit-2d": (lambda a: anp.hsplit(a, 3), np.hsplit, (2, 6), (3,)),
    "hsplit-1d": (lambda a: anp.hsplit(a, 2), np.hsplit, (6,), (2,)),
    "dsplit": (lambda a: anp.dsplit(a, [1]), np.dsplit, (2, 2, 3), ([1],)),
}


@pytest.mark.parametrize("name", list(SPLITS))
def test_split_family_matches_numpy_and_carries_gradients(name, rng) -> None:
    traced, reference, shape, options = SPLITS[name]
    x = rng.standard_normal(shape)
    pieces, expected = traced(x), reference(x, *options)
    assert [np.shape(p) for p in pieces] == [p.shape for p in expected]
    for piece, want in zip(pieces, expected, strict=True):
        np.testing.assert_array_equal(piece, want)

    def weighted(a):
        return anp.concatenate([anp.ravel(p) * (i + 1.0) for i, p in enumerate(traced(a))])

    gradient = grad(lambda a: anp.sum(weighted(a)))(x)
    assert gradient.shape == x.shape
    check_grads(weighted)(x)


def test_vsplit_of_a_vector_raises_as_numpy_does(rng) -> None:
    with pytest.raises(ValueError, match="2 or more dimensions"):
        anp.vsplit(rng.standard_normal(4), 2)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_append_matches_numpy_and_carries_gradients(axis, rng) -> None:
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    result = anp.append(x, y, axis=axis)
    expected = np.append(x, y, axis=axis)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)
    check_grads(lambda a, b: anp.append(a, b, axis=axis))(x, y)


def test_a_real_array_concatenated_with_complex_ones_gets_a_real_gradient(rng) -> None:
    # Its cotangent was the complex slice, so grad of a real input came back complex (and a
    # real-valued function of the real piece, such as abs, read a complex cotangent).
    x, z = rng.standard_normal(3), np.array([1.0 + 2.0j])
    gradient = grad(lambda a: anp.real(anp.sum(anp.concatenate([a, z]) * (1.0 + 1.0j))))(x)
    assert gradient.shape == (3,)
    assert not np.iscomplexobj(gradient)
    np.testing.assert_array_equal(gradient, np.ones(3))
    check_grads(lambda a: anp.concatenate([anp.abs(a), z]), modes=("rev",))(x)


@pytest.mark.parametrize("sections", [2, 3], ids=["equal", "unequal"])
def test_a_function_may_return_the_pieces_of_a_split_in_both_modes(sections, rng) -> None:
    # The pieces were a plain list of boxes, which no derivative reads: a function returning
    # them had zero derivatives (with a warning) and forward mode returned the boxes themselves.
    # Unequal pieces also broke check_grads, which compared them with one np.allclose.
    x, tangent = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    values, tangents = make_jvp(lambda a: anp.array_split(a, sections))(x)(tangent)
    expected = np.array_split(x, sections)
    assert [np.shape(t) for t in tangents] == [p.shape for p in expected]
    for value, want, piece_tangent, want_tangent in zip(
        values, expected, tangents, np.array_split(tangent, sections), strict=True
    ):
        np.testing.assert_array_equal(value, want)
        np.testing.assert_array_equal(piece_tangent, want_tangent)
    check_grads(lambda a: anp.array_split(a, sections))(x)


def test_row_stack_is_vstack(rng) -> None:
    rows = [rng.standard_normal(3), rng.standard_normal((2, 3))]
    stacked = anp.row_stack(rows)
    assert stacked.shape == (3, 3)
    np.testing.assert_array_equal(stacked, np.vstack(rows))
    check_grads(lambda a, b: anp.row_stack([a, b]))(*rows)


def test_r_and_c_without_traced_values_are_numpys_own() -> None:
    """Plain arguments take NumPy's path, directives included; a directive on traced values
    is refused with a message that says what to use instead."""
    np.testing.assert_array_equal(anp.r_[1:4, 0, np.ones(2)], np.r_[1:4, 0, np.ones(2)])
    np.testing.assert_array_equal(anp.r_["0,2", [1, 2], [3, 4]], np.r_["0,2", [1, 2], [3, 4]])
    np.testing.assert_array_equal(anp.c_[np.ones(2), np.zeros(2)], np.c_[np.ones(2), np.zeros(2)])
    with pytest.raises(NotImplementedError, match="directive string"):
        grad(lambda x: anp.sum(anp.r_["0,2", x, x]))(np.ones(2))


def test_pad_jvp_of_the_copying_modes_and_what_has_no_rule(rng) -> None:
    """`pad` in edge/reflect/symmetric/wrap mode copies entries: forward mode pads the tangent;
    reverse mode has a rule for constant mode only (as HIPS/autograd), and says so."""
    x = rng.standard_normal((3, 4))
    for mode in ("edge", "reflect", "symmetric", "wrap"):
        check_jvp_against_fd(lambda x, mode=mode: anp.pad(x, ((1, 2), (2, 0)), mode), [x], 0, rng)
    shape = r" \(array of shape \(3, 4\)\)"
    with pytest.raises(NotImplementedError, match=r"no VJP rule for pad with mode='edge'" + shape):
        grad(lambda x: anp.sum(anp.pad(x, 1, "edge")))(x)
    with pytest.raises(NotImplementedError, match=r"no JVP rule for pad with mode='maximum'" + shape):
        make_jvp(lambda x: anp.pad(x, 1, "maximum"))(x)(x)


def test_make_diagonal_places_the_vectors_and_refuses_other_axes(rng) -> None:
    d = rng.standard_normal((3, 4))
    result = anp.make_diagonal(d, axis1=-1, axis2=-2)
    assert result.shape == (3, 4, 4)
    for i in range(3):
        np.testing.assert_array_equal(result[i], np.diag(d[i]))
    with pytest.raises(NotImplementedError, match=r"make_diagonal: only offset=0, axis1=-1, axis2=-2 .* "
                       r"got offset=1, axis1=-1, axis2=-2 for D of shape \(3, 4\)"):
        anp.make_diagonal(d, offset=1)
    with pytest.raises(ValueError, match=r"make_diagonal: D must have at least one axis, got shape \(\)"):
        anp.make_diagonal(1.0)


def test_append_to_a_list_being_differentiated(rng) -> None:
    """autograd's test_numpy: `append` of a list argument, flat and along an axis, both modes."""
    check_grads(anp.append, argnum=(0, 1))([1.0, 2.0, 3.0], 4.0)
    check_grads(anp.append, argnum=(0, 1))([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0]], axis=0)
    computed = grad(lambda xs: anp.sum(anp.append(xs, 4.0) ** 2))([1.0, 2.0, 3.0])
    assert isinstance(computed, list) and len(computed) == 3
    np.testing.assert_allclose(np.array(computed), [2.0, 4.0, 6.0])


def test_split_has_tangents_in_forward_mode(rng) -> None:
    x, v = rng.standard_normal(6), rng.standard_normal(6)
    pieces, tangents = make_jvp(lambda x: anp.split(x * 1.0, 3))(x)(v)
    assert [t.shape for t in tangents] == [(2,), (2,), (2,)]
    np.testing.assert_allclose(np.concatenate(tangents), v, rtol=1e-15)
    np.testing.assert_allclose(np.concatenate(pieces), x, rtol=1e-15)
