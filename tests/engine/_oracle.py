"""Finite-difference oracle for the engine tests.

Everything here uses plain NumPy arithmetic on plain arrays. It never asks `ad_core` for a
derivative, so a test that compares the engine against these helpers does not trust the code
under test. The functions passed in may be built from `ad_core.numpy` wrappers: called on plain
arrays those only evaluate NumPy, they do not differentiate anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

# A fourth-order central stencil: with this step its truncation error (~step**4) and its
# rounding error (~1e-16 / step) both stay near 1e-12 for the smooth functions under test.
FD_STEP = 1e-3
FD_RTOL = 1e-7
FD_ATOL = 1e-8

# Broadcast-compatible shapes named in the engine issue; every pair of them broadcasts.
BROADCAST_SHAPES: tuple[tuple[int, ...], ...] = ((), (4,), (3, 4), (1, 4), (3, 1), (2, 3, 4), (2, 1, 4))
SHAPE_PAIRS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (a, b) for a in BROADCAST_SHAPES for b in BROADCAST_SHAPES
)


def shape_id(shape: tuple[int, ...]) -> str:
    """A readable pytest id for a shape: `()` or `3x4`."""
    return "()" if shape == () else "x".join(str(n) for n in shape)


def pair_id(pair: tuple[tuple[int, ...], tuple[int, ...]]) -> str:
    return f"{shape_id(pair[0])}-with-{shape_id(pair[1])}"


def as_input(values: np.ndarray) -> Any:
    """A 0-d sample becomes a Python scalar, as a user would pass one."""
    return np.asarray(values).item() if np.ndim(values) == 0 else values


def uniform(rng: np.random.Generator, shape: tuple[int, ...], low: float, high: float) -> Any:
    return as_input(rng.uniform(low, high, size=shape))


def tie_free(rng: np.random.Generator, shape: tuple[int, ...], parity: int) -> Any:
    """Values on a grid of step 0.2 offset by `parity * 0.1`.

    Two samples with different parity are at least 0.1 apart, far more than the finite-difference
    step, so `maximum`, `minimum`, `max` and friends never meet a tie or a near-tie.
    """
    grid = rng.integers(-10, 10, size=shape) * 0.2 + parity * 0.1
    return as_input(grid.astype(np.float64))


def distinct_values(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    """All entries distinct and at least 0.1 apart (for max/min/sort-like reductions)."""
    size = int(np.prod(shape, dtype=int))
    values = rng.permutation(size) * 0.1 - 0.05 * size
    return as_input(values.reshape(shape).astype(np.float64))


def like(template: Any, values: np.ndarray) -> Any:
    """`values` in the same kind of container as `template` (ndarray stays ndarray, even 0-d)."""
    return values if isinstance(template, np.ndarray) else as_input(values)


def _replace(args: Sequence[Any], argnum: int, value: Any) -> list[Any]:
    replaced = list(args)
    replaced[argnum] = value
    return replaced


def directional_derivative(
    fun: Callable[..., Any], args: Sequence[Any], argnum: int, direction: Any
) -> np.ndarray:
    """d/dt fun(..., args[argnum] + t * direction, ...) at t = 0, by a 5-point stencil."""
    base = np.asarray(args[argnum])
    direction = np.asarray(direction)

    def at(t: float) -> np.ndarray:
        moved = base + t * direction
        return np.asarray(fun(*_replace(args, argnum, as_input(moved))))

    h = FD_STEP
    return (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h)


def numerical_jacobian(fun: Callable[..., Any], args: Sequence[Any], argnum: int) -> np.ndarray:
    """The full Jacobian, shape `output.shape + input.shape`, one real basis direction at a time."""
    base = np.asarray(args[argnum], dtype=np.float64)
    output_shape = np.shape(fun(*args))
    columns = []
    for flat_index in range(base.size):
        direction = np.zeros(base.size)
        direction[flat_index] = 1.0
        columns.append(directional_derivative(fun, args, argnum, direction.reshape(base.shape)))
    stacked = np.stack(columns, axis=-1) if columns else np.zeros((*output_shape, 0))
    return stacked.reshape(output_shape + base.shape)


def numerical_vjp(
    fun: Callable[..., Any], args: Sequence[Any], argnum: int, cotangent: np.ndarray
) -> np.ndarray:
    """cotangent · J, contracted over the output axes; has the shape of `args[argnum]`."""
    jacobian = numerical_jacobian(fun, args, argnum)
    output_ndim = np.ndim(cotangent)
    return np.tensordot(np.asarray(cotangent), jacobian, axes=output_ndim)


def numerical_grad(fun: Callable[..., Any], args: Sequence[Any], argnum: int = 0) -> np.ndarray:
    """Gradient of a real scalar function of a real input."""
    return numerical_vjp(fun, args, argnum, np.ones(()))


def numerical_complex_grad(fun: Callable[..., Any], z: Any) -> np.ndarray:
    """Gradient of a real scalar function of a complex input, in autograd's convention.

    With z = x + i y the convention is dL/dx - i dL/dy (the conjugate of the Wirtinger-style
    2 dL/dz̄), which is what HIPS/autograd returns.
    """
    z = np.asarray(z, dtype=np.complex128)
    along_real = np.zeros(z.shape)
    along_imag = np.zeros(z.shape)
    for index in np.ndindex(z.shape):
        basis = np.zeros(z.shape, dtype=np.complex128)
        basis[index] = 1.0
        along_real[index] = directional_derivative(fun, [z], 0, basis)
        along_imag[index] = directional_derivative(fun, [z], 0, 1j * basis)
    return along_real - 1j * along_imag


def reduce_to_shape(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast array back to `shape`: the textbook reduction, written independently.

    Leading axes that broadcasting added are summed away; axes where `shape` has size 1 are
    summed with keepdims.
    """
    values = np.asarray(values)
    extra = values.ndim - len(shape)
    values = values.sum(axis=tuple(range(extra))) if extra > 0 else values
    size_one_axes = tuple(i for i, n in enumerate(shape) if n == 1 and values.shape[i] != 1)
    if size_one_axes:
        values = values.sum(axis=size_one_axes, keepdims=True)
    return values.reshape(shape)


def assert_same_shape(computed: Any, expected_shape: tuple[int, ...], what: str) -> None:
    assert np.shape(computed) == expected_shape, (
        f"{what}: shape {np.shape(computed)}, expected {expected_shape}"
    )


def assert_close(
    computed: Any, expected: Any, what: str, rtol: float = FD_RTOL, atol: float = FD_ATOL
) -> None:
    np.testing.assert_allclose(computed, expected, rtol=rtol, atol=atol, err_msg=what)


def check_vjp_against_fd(
    fun: Callable[..., Any], args: Sequence[Any], argnum: int, rng: np.random.Generator
) -> None:
    """Reverse mode: shape first, then the values of the VJP against a finite-difference VJP."""
    from ad_core import make_vjp

    output = fun(*args)
    cotangent = rng.standard_normal(np.shape(output))
    vjp, _ = make_vjp(fun, argnum)(*args)
    computed = vjp(like(output, cotangent))
    assert_same_shape(computed, np.shape(args[argnum]), f"VJP wrt argument {argnum}")
    expected = numerical_vjp(fun, args, argnum, cotangent)
    assert_close(computed, expected, f"VJP wrt argument {argnum}")


def check_jvp_against_fd(
    fun: Callable[..., Any], args: Sequence[Any], argnum: int, rng: np.random.Generator
) -> None:
    """Forward mode: shape first, then the values of the JVP against a directional difference."""
    from ad_core import make_jvp

    output = fun(*args)
    tangent = rng.standard_normal(np.shape(args[argnum]))
    _, computed = make_jvp(fun, argnum)(*args)(like(args[argnum], tangent))
    assert_same_shape(computed, np.shape(output), f"JVP wrt argument {argnum}")
    expected = directional_derivative(fun, args, argnum, tangent)
    assert_close(computed, expected, f"JVP wrt argument {argnum}")


def check_both_modes(
    fun: Callable[..., Any],
    args: Sequence[Any],
    rng: np.random.Generator,
    argnums: Sequence[int] | None = None,
) -> None:
    """VJP and JVP of every differentiable argument against finite differences."""
    for argnum in range(len(args)) if argnums is None else argnums:
        check_vjp_against_fd(fun, args, argnum, rng)
        check_jvp_against_fd(fun, args, argnum, rng)


# check_grads at order 2 differentiates the first derivative of linear maps (add, reshape, ...)
# which is constant, so the engine rightly warns that the output does not depend on the input.
# The tests that do this on purpose silence only that warning.
allow_constant_derivatives = pytest.mark.filterwarnings("ignore:.*does not depend on the input:UserWarning")
