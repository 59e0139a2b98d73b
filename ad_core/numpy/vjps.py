"""Reverse-mode rules for NumPy: for each primitive and argument, `ans, *args -> (g -> contribution)`.

Sections, in the same order as `jvps.py`: shape helpers, arithmetic, elementwise functions,
reductions, linear algebra, shape operations, indexing, complex numbers. The rules are written
with `ad_core.numpy` functions, so they are traced themselves and can be differentiated again.
"""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Callable
from typing import Any

import numpy as onp
from numpy._core.einsumfunc import _parse_einsum_input

from ..core import defvjp, defvjp_argnum, vspace
from ..tracer import getval
from . import wrapper as anp

# =============================================================================================
# Shape helpers: a broadcast input gets back a cotangent of its own shape
# =============================================================================================


def _ndim(x: Any) -> int:
    return getattr(x, "ndim", 0)


def _shape(x: Any) -> tuple:
    return getattr(x, "shape", ())


def _as_array(x: Any) -> Any:
    """An operand as the rules read it: arrays and boxes as they are, lists as NumPy sees them."""
    return x if hasattr(x, "shape") else onp.asarray(x)


def _iscomplex(x: Any) -> bool:
    return (getattr(x, "dtype", None) is not None and x.dtype.kind == "c") or isinstance(x, complex)


def unbroadcast(x: Any, target_meta: tuple, broadcast_idx: int = 0) -> Any:
    r"""Sum the cotangent `x` down to the shape in `target_meta`.

    Broadcasting copies an input to many output positions, so its transpose adds the
    copies' cotangents: first over the leading axes broadcasting added, then (keeping
    the axis) over each axis where the target has size 1. A real target drops the
    imaginary part.
    """
    target_shape, target_ndim, _dtype, target_iscomplex = target_meta
    if (type(x) is onp.ndarray and x.shape == target_shape
            and (target_iscomplex or x.dtype.kind != "c")):
        return x  # nothing was broadcast: the common case, kept cheap
    while _ndim(x) > target_ndim:
        x = anp.sum(x, axis=broadcast_idx)
    for axis, size in enumerate(target_shape):
        if size == 1 and x.shape[axis] != 1:
            x = anp.sum(x, axis=axis, keepdims=True)
    if _iscomplex(x) and not target_iscomplex:
        x = anp.real(x)
    return x


def unbroadcast_f(target: Any, f: Callable) -> Callable:
    """Capture the target's metadata now (forward) and reduce `f(g)` to it later (backward)."""
    target_meta = anp.metadata(target)
    return lambda g: unbroadcast(f(g), target_meta)


def reduce_then(target: Any, f: Callable, after: Callable) -> Callable:
    """Like `unbroadcast_f`, then apply `after` to the reduced cotangent. A factor that depends
    only on the target (`-1`, `1/y`) costs less applied after the sum, on the target's shape."""
    target_meta = anp.metadata(target)
    return lambda g: after(unbroadcast(f(g), target_meta))


def replace_zero(x: Any, value: float) -> Any:
    return anp.where(x, x, value)


def exponent_below(y: Any) -> Any:
    """`y - 1`, or 1 where `y` is 0, so that `x ** exponent_below(y)` never divides by a zero
    `x`. A Python number stays a Python number: a NumPy 0-d array would promote a float32 base
    (and so its gradient) to float64."""
    if isinstance(y, int | float):
        return y - 1 if y != 0 else 1.0
    return anp.where(y, y - 1, 1.0)


def balanced_eq(x: Any, z: Any, y: Any) -> Any:
    """1 where `x` produced the max/min `z`, 1/2 where `x` and `y` tie: ties share the gradient."""
    return (x == z) / (1.0 + (x == y))


def multiply_into(fresh: Any, factor: Any) -> Any:
    """`fresh * factor`, where `fresh` is a temporary the calling rule just made and `factor`
    broadcasts to its shape. At large sizes a new full-size array costs more than the
    multiplication (fresh pages, cache misses), so plain arrays of one dtype multiply in
    place; traced values (boxes) take the ordinary product, which can be differentiated again."""
    if type(fresh) is onp.ndarray and type(factor) is onp.ndarray and factor.dtype == fresh.dtype:
        return onp.multiply(fresh, factor, out=fresh)
    return fresh * factor


# =============================================================================================
# Arithmetic
# =============================================================================================

defvjp(anp.negative, lambda ans, x: lambda g: -g)
defvjp(anp.add,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g),
       lambda ans, x, y: unbroadcast_f(y, lambda g: g))
defvjp(anp.subtract,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g),
       lambda ans, x, y: reduce_then(y, lambda g: g, lambda r: -r))
defvjp(anp.multiply,
       lambda ans, x, y: unbroadcast_f(x, lambda g: y * g),
       lambda ans, x, y: unbroadcast_f(y, lambda g: x * g))
defvjp(anp.true_divide,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g / y),
       lambda ans, x, y: reduce_then(y, lambda g: g * ans, lambda r: -r / y))
defvjp(anp.power,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g * y * x ** exponent_below(y)),
       lambda ans, x, y: unbroadcast_f(y, lambda g: g * anp.log(replace_zero(x, 1.0)) * ans))
for _modulo in (anp.mod, anp.remainder):
    defvjp(_modulo,
           lambda ans, x, y: unbroadcast_f(x, lambda g: g),
           lambda ans, x, y: unbroadcast_f(y, lambda g: -g * anp.floor(x / y)))
for _extremum in (anp.maximum, anp.minimum, anp.fmax, anp.fmin):
    defvjp(_extremum,
           lambda ans, x, y: unbroadcast_f(x, lambda g: g * balanced_eq(x, ans, y)),
           lambda ans, x, y: unbroadcast_f(y, lambda g: g * balanced_eq(y, ans, x)))
defvjp(anp.logaddexp,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g * anp.exp(x - ans)),
       lambda ans, x, y: unbroadcast_f(y, lambda g: g * anp.exp(y - ans)))
defvjp(anp.logaddexp2,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g * 2 ** (x - ans)),
       lambda ans, x, y: unbroadcast_f(y, lambda g: g * 2 ** (y - ans)))
defvjp(anp.arctan2,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g * y / (x**2 + y**2)),
       lambda ans, x, y: unbroadcast_f(y, lambda g: g * -x / (x**2 + y**2)))
defvjp(anp.hypot,
       lambda ans, x, y: unbroadcast_f(x, lambda g: g * x / ans),
       lambda ans, x, y: unbroadcast_f(y, lambda g: g * y / ans))
defvjp(anp.where, None,
       lambda ans, c, x=None, y=None: unbroadcast_f(x, lambda g: anp.where(c, g, 0.0)),
       lambda ans, c, x=None, y=None: unbroadcast_f(y, lambda g: anp.where(c, 0.0, g)))

# =============================================================================================
# Elementwise functions
# =============================================================================================

defvjp(anp.exp, lambda ans, x: lambda g: ans * g)
defvjp(anp.exp2, lambda ans, x: lambda g: ans * onp.log(2) * g)
defvjp(anp.expm1, lambda ans, x: lambda g: (ans + 1) * g)
defvjp(anp.log, lambda ans, x: lambda g: g / x)
defvjp(anp.log2, lambda ans, x: lambda g: g / (x * onp.log(2)))
defvjp(anp.log10, lambda ans, x: lambda g: g / (x * onp.log(10)))
defvjp(anp.log1p, lambda ans, x: lambda g: g / (x + 1))
defvjp(anp.sqrt, lambda ans, x: lambda g: g * 0.5 / ans)
defvjp(anp.cbrt, lambda ans, x: lambda g: g / (3 * ans**2))
defvjp(anp.square, lambda ans, x: lambda g: g * 2 * x)
defvjp(anp.reciprocal, lambda ans, x: lambda g: -g / x**2)
defvjp(anp.absolute, lambda ans, x: lambda g: g * replace_zero(anp.conj(x), 0.0) / replace_zero(ans, 1.0))
defvjp(anp.fabs, lambda ans, x: lambda g: g * anp.sign(x))
defvjp(anp.sin, lambda ans, x: lambda g: g * anp.cos(x))
defvjp(anp.cos, lambda ans, x: lambda g: -g * anp.sin(x))
defvjp(anp.tan, lambda ans, x: lambda g: g / anp.cos(x) ** 2)
defvjp(anp.arcsin, lambda ans, x: lambda g: g / anp.sqrt(1 - x**2))
defvjp(anp.arccos, lambda ans, x: lambda g: -g / anp.sqrt(1 - x**2))
defvjp(anp.arctan, lambda ans, x: lambda g: g / (1 + x**2))
defvjp(anp.sinh, lambda ans, x: lambda g: g * anp.cosh(x))
defvjp(anp.cosh, lambda ans, x: lambda g: g * anp.sinh(x))
defvjp(anp.tanh, lambda ans, x: lambda g: g * (1 - ans**2))
defvjp(anp.arcsinh, lambda ans, x: lambda g: g / anp.sqrt(x**2 + 1))
defvjp(anp.arccosh, lambda ans, x: lambda g: g / anp.sqrt(x**2 - 1))
defvjp(anp.arctanh, lambda ans, x: lambda g: g / (1 - x**2))
defvjp(anp.deg2rad, lambda ans, x: lambda g: g * onp.pi / 180)
defvjp(anp.rad2deg, lambda ans, x: lambda g: g * 180 / onp.pi)
defvjp(anp.radians, lambda ans, x: lambda g: g * onp.pi / 180)
defvjp(anp.degrees, lambda ans, x: lambda g: g * 180 / onp.pi)
defvjp(anp.nan_to_num, lambda ans, x, *args, **kwargs: lambda g: g * anp.isfinite(x))
defvjp(anp.sinc, lambda ans, x: lambda g: g * (anp.cos(onp.pi * x) * onp.pi * x - anp.sin(onp.pi * x))
       / (onp.pi * replace_zero(x, 1.0) ** 2) * (x != 0))
defvjp(anp.clip,
       lambda ans, x, a_min=None, a_max=None: unbroadcast_f(
           x, lambda g: g * anp.logical_and(ans != a_min, ans != a_max)),
       None, None)

# =============================================================================================
# Reductions
# =============================================================================================


@functools.lru_cache(maxsize=4096)
def reduction_layout(shape: tuple, axis: Any) -> tuple[tuple, int]:
    """Where a reduction over `axis` leaves size-1 axes (`kept_shape`) and how many entries
    each output combines (`count`). Reshaping a cotangent to `kept_shape` lets broadcasting
    copy it back along the reduced axes.

    Cached: a training loop asks about the same few shapes at every step, and the answer
    costs several Python-level loops to work out."""
    if axis is None:
        axes = set(range(len(shape)))
    else:
        axes = {a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)}
    kept_shape = tuple(1 if i in axes else size for i, size in enumerate(shape))
    return kept_shape, math.prod(shape[i] for i in axes)


def grad_sum(ans, x, axis=None, keepdims=False, dtype=None):
    shape = _shape(x)
    kept_shape, _ = reduction_layout(shape, axis)
    aligned = keepdims or axis is None  # g already broadcasts against x: kept axes, or a scalar
    return lambda g: anp.broadcast_to(g if aligned else anp.reshape(g, kept_shape), shape)


def grad_mean(ans, x, axis=None, keepdims=False, dtype=None):
    shape = _shape(x)
    kept_shape, count = reduction_layout(shape, axis)
    aligned = keepdims or axis is None  # as in grad_sum
    return lambda g: anp.broadcast_to((g if aligned else anp.reshape(g, kept_shape)) / count, shape)


def grad_var(ans, x, axis=None, ddof=0, keepdims=False, dtype=None):
    kept_shape, count = reduction_layout(_shape(x), axis)

    def vjp(g):
        centred = x - anp.mean(x, axis=axis, keepdims=True)
        if _iscomplex(centred):  # conj of a real array would only copy it
            centred = anp.conj(centred)
        return multiply_into(centred, anp.reshape(g, kept_shape) * (2.0 / (count - ddof)))

    return vjp


def grad_std(ans, x, axis=None, ddof=0, keepdims=False, dtype=None):
    kept_shape, count = reduction_layout(_shape(x), axis)

    def vjp(g):
        centred = x - anp.mean(x, axis=axis, keepdims=True)
        if _iscomplex(centred):  # conj of a real array would only copy it
            centred = anp.conj(centred)
        # Where the spread is 0 every centred entry is 0 too: the gradient there is 0, not 0/0.
        spread = replace_zero(anp.reshape(ans, kept_shape), 1.0)
        scale = anp.reshape(g, kept_shape) / ((count - ddof) * spread)
        return multiply_into(centred, scale)

    return vjp


def grad_chooser(ans, x, axis=None, keepdims=None):
    """max/min: the gradient goes to the position(s) that attained the extreme, shared
    equally between ties."""
    kept_shape, _ = reduction_layout(_shape(x), axis)

    def vjp(g):
        # Booleans are never traced, so NumPy may count them directly; dividing the cotangent
        # on the reduced shape first leaves one full-size multiplication.
        winners = x == anp.reshape(ans, kept_shape)
        return anp.reshape(g, kept_shape) / winners.sum(axis=axis, keepdims=True) * winners

    return vjp


def grad_prod(ans, x, axis=None, keepdims=False, dtype=None):
    """Each entry's derivative is the product of the others. Dividing the product by the entry
    is exact only without zeros; with one zero, only that entry gets the product of the rest;
    with two or more, every derivative is zero."""
    kept_shape, _ = reduction_layout(_shape(x), axis)

    def vjp(g):
        g_kept = anp.reshape(g, kept_shape)
        is_zero = x == 0
        if not anp.any(is_zero):
            return g_kept * anp.reshape(ans, kept_shape) / x
        safe_x = anp.where(is_zero, 1.0, x)
        others = anp.prod(safe_x, axis=axis, keepdims=True)
        zeros = anp.sum(is_zero, axis=axis, keepdims=True)
        lone_zero = anp.logical_and(zeros == 1, is_zero)
        product_of_others = anp.where(zeros == 0, others / safe_x, anp.where(lone_zero, others, 0.0))
        return g_kept * product_of_others

    return vjp


def grad_cumsum(ans, x, axis=None, dtype=None):
    shape = _shape(x)

    def vjp(g):
        if axis is None:
            return anp.reshape(anp.flip(anp.cumsum(anp.flip(g))), shape)
        return anp.flip(anp.cumsum(anp.flip(g, axis), axis), axis)

    return vjp


defvjp(anp.sum, grad_sum)
defvjp(anp.mean, grad_mean)
defvjp(anp.var, grad_var)
defvjp(anp.std, grad_std)
defvjp(anp.max, grad_chooser)
defvjp(anp.min, grad_chooser)
defvjp(anp.amax, grad_chooser)
defvjp(anp.amin, grad_chooser)
defvjp(anp.prod, grad_prod)
defvjp(anp.cumsum, grad_cumsum)

# =============================================================================================
# Linear algebra
# =============================================================================================


def _real_part(x: Any) -> Any:
    return anp.real(x) if _iscomplex(x) else x


def real_for_real(target: Any, vjp: Callable) -> Callable:
    """`vjp`, with the cotangent of a real `target` made real. A product of a real and a complex
    factor has a complex cotangent; its imaginary part points in no real direction, so a real
    input keeps only the real part (as a broadcast one does in `unbroadcast`)."""
    if anp.metadata(target)[3]:
        return vjp
    return lambda g: _real_part(vjp(g))


def dot_vjp_0(ans, A, B):
    """The cotangent of A in `dot(A, B)`: contract the output cotangent with B's last axes."""
    A_meta, B = anp.metadata(A), _as_array(B)
    A_ndim, B_ndim = A_meta[1], _ndim(B)

    def vjp(g):
        if A_ndim == 0 or B_ndim == 0:
            contribution = anp.multiply(B, g)
            return anp.sum(contribution) if A_ndim == 0 else contribution
        if B_ndim == 1:
            return anp.multiply(anp.expand_dims(g, -1), B)  # (..., n) from (...,) and (n,)
        if B_ndim == 2:
            return anp.dot(g, B.T)
        g_axes = [*range(A_ndim - 1, anp.ndim(g) - 1), anp.ndim(g) - 1]
        B_axes = [*range(B_ndim - 2), B_ndim - 1]
        return anp.reshape(anp.tensordot(g, B, [g_axes, B_axes]), A_meta[0])

    return real_for_real(A, vjp)


def dot_vjp_1(ans, A, B):
    """The cotangent of B in `dot(A, B)`: contract A's leading axes with the cotangent's."""
    B_meta, A = anp.metadata(B), _as_array(A)
    A_ndim, B_ndim = _ndim(A), B_meta[1]

    def vjp(g):
        if A_ndim == 0 or B_ndim == 0:
            contribution = anp.multiply(A, g)
            return anp.sum(contribution) if B_ndim == 0 else contribution
        if A_ndim == 1:
            return anp.expand_dims(A, -1) * anp.expand_dims(g, -2) if B_ndim > 1 else A * g
        if A_ndim == 2 and B_ndim <= 2:
            return anp.dot(A.T, g)
        A_leading = list(range(A_ndim - 1))
        result = anp.tensordot(A, g, [A_leading, A_leading])
        # result axes: A's last axis (B's contracted axis), then B's free axes in order
        return anp.reshape(anp.moveaxis(result, 0, -2 if B_ndim > 1 else 0), B_meta[0])

    return real_for_real(B, vjp)


defvjp(anp.dot, dot_vjp_0, dot_vjp_1)


def matmul_vjp_0(ans, A, B):
    A_meta = anp.metadata(A)
    A_ndim, B_ndim = A_meta[1], anp.metadata(B)[1]

    def vjp(g):
        if B_ndim == 1:
            contribution = anp.expand_dims(g, -1) * B
        elif A_ndim == 1:
            contribution = anp.matmul(anp.expand_dims(g, -2), anp.swapaxes(B, -1, -2))[..., 0, :]
        else:
            contribution = anp.matmul(g, anp.swapaxes(B, -1, -2))
        return unbroadcast(contribution, A_meta)

    return vjp


def matmul_vjp_1(ans, A, B):
    B_meta = anp.metadata(B)
    A_ndim, B_ndim = anp.metadata(A)[1], B_meta[1]

    def vjp(g):
        if A_ndim == 1:
            g_matrix = anp.expand_dims(g, -2) if B_ndim > 1 else g
            contribution = (anp.expand_dims(A, -1) * g_matrix if B_ndim > 1 else A * g)
        elif B_ndim == 1:
            contribution = anp.matmul(anp.swapaxes(A, -1, -2), anp.expand_dims(g, -1))[..., 0]
        else:
            contribution = anp.matmul(anp.swapaxes(A, -1, -2), g)
        return unbroadcast(contribution, B_meta)

    return vjp


defvjp(anp.matmul, matmul_vjp_0, matmul_vjp_1)


def _tensordot_axes(axes: Any, A_ndim: int, B_ndim: int) -> tuple[list[int], list[int]]:
    """Normalise `tensordot`'s `axes` to two lists of paired, non-negative axes."""
    if isinstance(axes, int):
        return list(range(A_ndim - axes, A_ndim)), list(range(axes))
    A_axes, B_axes = ([a] if isinstance(a, int) else list(a) for a in axes)
    return [a % A_ndim for a in A_axes], [b % B_ndim for b in B_axes]


def tensordot_adjoint_0(B, G, axes, A_ndim, B_ndim):
    """The cotangent of A in `tensordot(A, B, axes)`: contract G with B's free axes."""
    A_axes, B_axes = _tensordot_axes(axes, A_ndim, B_ndim)
    B_free = [b for b in range(B_ndim) if b not in B_axes]
    G_ndim = anp.ndim(G)
    result = anp.tensordot(G, B, [list(range(G_ndim - len(B_free), G_ndim)), B_free])
    # result axes: A's free axes, then B's contracted axes in B's order, i.e. the A axes
    # they were paired with, taken in the order of the B axes.
    A_free = [a for a in range(A_ndim) if a not in A_axes]
    paired = [A_axes[i] for i in onp.argsort(B_axes)]
    return anp.transpose(result, onp.argsort(A_free + paired))


def tensordot_adjoint_1(A, G, axes, A_ndim, B_ndim):
    """The cotangent of B in `tensordot(A, B, axes)`: contract A's free axes with G."""
    A_axes, B_axes = _tensordot_axes(axes, A_ndim, B_ndim)
    A_free = [a for a in range(A_ndim) if a not in A_axes]
    result = anp.tensordot(A, G, [A_free, list(range(len(A_free)))])
    # result axes: A's contracted axes in A's order (as the B axes paired with them), then B's free axes
    B_free = [b for b in range(B_ndim) if b not in B_axes]
    paired = [B_axes[i] for i in onp.argsort(A_axes)]
    return anp.transpose(result, onp.argsort(paired + B_free))


defvjp(anp.tensordot,
       lambda ans, A, B, axes=2: real_for_real(A, lambda g: tensordot_adjoint_0(
           B, g, axes, anp.ndim(A), anp.ndim(B))),
       lambda ans, A, B, axes=2: real_for_real(B, lambda g: tensordot_adjoint_1(
           A, g, axes, anp.ndim(A), anp.ndim(B))))
defvjp(anp.outer,
       lambda ans, a, b: real_for_real(a, lambda g: anp.reshape(anp.dot(g, anp.ravel(b)), anp.shape(a))),
       lambda ans, a, b: real_for_real(b, lambda g: anp.reshape(anp.dot(anp.ravel(a), g), anp.shape(b))))


def inner_vjp(argnum):
    def maker(ans, a, b):
        other = b if argnum == 0 else a
        mine_shape = anp.shape(a if argnum == 0 else b)

        def vjp(g):
            if anp.ndim(a) == 0 or anp.ndim(b) == 0:
                contribution = g * other
                return anp.sum(contribution) if len(mine_shape) == 0 else contribution
            if argnum == 0:
                return anp.tensordot(g, other, [list(range(anp.ndim(a) - 1, anp.ndim(g))),
                                                list(range(anp.ndim(b) - 1))])
            return anp.moveaxis(anp.tensordot(a, g, [list(range(anp.ndim(a) - 1)),
                                                     list(range(anp.ndim(a) - 1))]), 0, -1)

        return real_for_real(a if argnum == 0 else b, vjp)

    return maker


defvjp(anp.inner, inner_vjp(0), inner_vjp(1))


def _match_complex(target: Any, x: Any) -> Any:
    """Give a cotangent the real or complex type of the input it belongs to."""
    if vspace(target).iscomplex:
        return x + 0j
    return anp.real(x)


def grad_kron(argnum, ans, args, kwargs):
    """`kron(A, B)[..., i*p + k, j*q + l] = A[..., i, j] * B[..., k, l]`: split each output axis
    into its (A, B) pair, then contract the cotangent with the other factor."""
    A, B = args
    A_shape, B_shape = _shape(A), _shape(B)
    ndim = max(len(A_shape), len(B_shape))
    A_full = (1,) * (ndim - len(A_shape)) + tuple(A_shape)
    B_full = (1,) * (ndim - len(B_shape)) + tuple(B_shape)
    interleaved = [n for pair in zip(A_full, B_full, strict=True) for n in pair]

    def vjp(g):
        blocks = anp.reshape(g, interleaved)  # axes (a0, b0, a1, b1, ...)
        if argnum == 0:
            other = anp.reshape(B, B_full)
            summed = anp.tensordot(blocks, other, [list(range(1, 2 * ndim, 2)), list(range(ndim))])
            return _match_complex(A, anp.reshape(summed, A_shape))
        other = anp.reshape(A, A_full)
        summed = anp.tensordot(other, blocks, [list(range(ndim)), list(range(0, 2 * ndim, 2))])
        return _match_complex(B, anp.reshape(summed, B_shape))

    return vjp


defvjp_argnum(anp.kron, grad_kron)


def grad_cross(argnum, ans, args, kwargs):
    """`cross(a, b)` is bilinear: with the vector axes moved last, the cotangent of `a` is
    `cross(b, g)` and that of `b` is `cross(g, a)`, each summed down to its input's shape and
    its vector axis moved back (autograd's rule, which leaves the broadcasting out)."""
    a, b = args[0], args[1]
    options = dict(zip(("axisa", "axisb", "axisc", "axis"), args[2:], strict=False)) | kwargs
    axisa, axisb, axisc = (options.get(name, -1) for name in ("axisa", "axisb", "axisc"))
    if options.get("axis") is not None:
        axisa = axisb = axisc = options["axis"]
    a_last, b_last = anp.moveaxis(a, axisa, -1), anp.moveaxis(b, axisb, -1)
    if _shape(a_last)[-1] != 3 or _shape(b_last)[-1] != 3:
        raise NotImplementedError(
            "ad_core: the cross rule is for 3-vectors (NumPy deprecates cross products of 2-vectors)")
    own_meta = anp.metadata(a_last if argnum == 0 else b_last)
    own_axis = axisa if argnum == 0 else axisb

    def vjp(g):
        g_last = anp.moveaxis(g, axisc, -1)
        contribution = anp.cross(b_last, g_last) if argnum == 0 else anp.cross(g_last, a_last)
        return anp.moveaxis(unbroadcast(contribution, own_meta), -1, own_axis)

    return vjp


defvjp_argnum(anp.cross, grad_cross, argnums=(0, 1))


def einsum_operands(args: tuple, argnum: int) -> tuple[tuple, int]:
    """The operands of an `einsum` call and the position of argument `argnum` among them, in
    both call forms: `einsum("ij,jk", A, B)` and the interleaved `einsum(A, [0, 1], B, [1, 2])`
    (operand, sublist, ..., then optionally the output sublist)."""
    if isinstance(getval(args[0]), str):
        return args[1:], argnum - 1
    return args[0 : len(args) - len(args) % 2 : 2], argnum // 2


def grad_einsum(argnum, ans, args, kwargs):
    """The cotangent of one operand of `einsum` is another einsum: contract the output
    cotangent with the other operands, and write the operand's own subscripts as output.

    Two subscripts need care. One that appears only in this operand was summed away:
    contracting against an array of ones puts it back (the transpose of a sum is a copy).
    One repeated inside this operand (`"ii"`) read a diagonal: the cotangent is computed on
    the distinct letters and then placed on that diagonal with identity matrices.
    """
    input_subs, output_subs, _ = _parse_einsum_input(tuple(getval(a) for a in args))
    operands, position = einsum_operands(args, argnum)
    target_meta = anp.metadata(args[argnum])
    all_subs = input_subs.split(",")
    own_subs = all_subs[position]
    other_subs = all_subs[:position] + all_subs[position + 1 :]
    other_operands = operands[:position] + operands[position + 1 :]
    sizes = dict(zip(own_subs, target_meta[0], strict=True))
    distinct = "".join(dict.fromkeys(own_subs))
    named_elsewhere = set(output_subs + "".join(other_subs))
    summed_alone = "".join(letter for letter in distinct if letter not in named_elsewhere)
    free_letters = iter(sorted(set(string.ascii_letters) - set(input_subs + output_subs)))
    renamed, diagonals = [], []
    for index, letter in enumerate(own_subs):
        if letter in own_subs[:index]:
            fresh = next(free_letters)
            renamed.append(fresh)
            diagonals.append(letter + fresh)
        else:
            renamed.append(letter)

    def vjp(g):
        inputs, operands = [output_subs, *other_subs], [g, *other_operands]
        if summed_alone:
            inputs.insert(1, summed_alone)
            operands.insert(1, onp.ones([sizes[letter] for letter in summed_alone]))
        result = anp.einsum(",".join(inputs) + "->" + distinct, *operands)
        if diagonals:
            identities = [onp.eye(sizes[pair[0]]) for pair in diagonals]
            spec = ",".join([distinct, *diagonals]) + "->" + "".join(renamed)
            result = anp.einsum(spec, result, *identities)
        return unbroadcast(result, target_meta)

    return vjp


defvjp_argnum(anp.einsum, grad_einsum)

# =============================================================================================
# Shape operations
# =============================================================================================

defvjp(anp.reshape, lambda ans, x, shape, order=None: lambda g: anp.reshape(g, _shape(x)))
defvjp(anp.ravel, lambda ans, x, order=None: lambda g: anp.reshape(g, _shape(x)))
defvjp(anp.squeeze, lambda ans, x, axis=None: lambda g: anp.reshape(g, _shape(x)))
defvjp(anp.expand_dims, lambda ans, x, axis: lambda g: anp.reshape(g, _shape(x)))
defvjp(anp.atleast_1d, lambda ans, x: lambda g: anp.reshape(g, _shape(x)))
defvjp(anp.atleast_2d, lambda ans, x: lambda g: anp.reshape(g, _shape(x)))
defvjp(anp.atleast_3d, lambda ans, x: lambda g: anp.reshape(g, _shape(x)))
defvjp(anp.transpose, lambda ans, x, axes=None: lambda g: anp.transpose(
    g, None if axes is None else onp.argsort(axes)))
defvjp(anp.swapaxes, lambda ans, x, axis1, axis2: lambda g: anp.swapaxes(g, axis2, axis1))
defvjp(anp.moveaxis, lambda ans, x, source, destination: lambda g: anp.moveaxis(
    g, destination, source))
defvjp(anp.flip, lambda ans, x, axis=None: lambda g: anp.flip(g, axis))
defvjp(anp.flipud, lambda ans, x: lambda g: anp.flipud(g))
defvjp(anp.fliplr, lambda ans, x: lambda g: anp.fliplr(g))
defvjp(anp.rot90, lambda ans, x, k=1, axes=(0, 1): lambda g: anp.rot90(g, -k, axes))


def rollaxis_permutation(ndim: int, axis: int, start: int) -> list[int]:
    """The axes of `rollaxis(x, axis, start)` as positions in `x`, read off a zero-stride
    array whose axis lengths are all different."""
    probe = onp.broadcast_to(onp.empty((), dtype=bool), tuple(range(2, ndim + 2)))
    return [n - 2 for n in onp.rollaxis(probe, axis, start).shape]


defvjp(anp.rollaxis, lambda ans, x, axis, start=0: lambda g: anp.transpose(
    g, onp.argsort(rollaxis_permutation(anp.ndim(x), axis, start))))


def grad_diff(ans, x, n=1, axis=-1):
    """`diff` applies `y[i] = x[i + 1] - x[i]` `n` times; the adjoint of one application
    pads the cotangent with a zero at both ends and takes minus its difference."""

    def vjp(g):
        for _ in range(n):
            edge = list(anp.shape(g))
            edge[axis] = 1
            zero = onp.zeros(edge, dtype=anp.result_type(g))
            g = -anp.diff(anp.concatenate([zero, g, zero], axis=axis), axis=axis)
        return g

    return vjp


defvjp(anp.diff, grad_diff)


def gradient_axes(x: Any, axis: Any) -> list[int]:
    """The axes `numpy.gradient` differentiates along, in the order of its outputs."""
    ndim = anp.ndim(x)
    if axis is None:
        return list(range(ndim))
    return [a % ndim for a in ((axis,) if isinstance(axis, int) else axis)]


def gradient_matrix(n: int, spacing: tuple, edge_order: int) -> onp.ndarray:
    """`numpy.gradient` along one axis of length `n` is a matrix $D$: its columns are the
    gradients of the unit vectors, so `gradient(x) = D x` along that axis."""
    return onp.gradient(onp.eye(n), *spacing, axis=0, edge_order=edge_order)


def grad_gradient(ans, x, *varargs, axis=None, edge_order=1):
    """The transpose of each axis' difference matrix, applied to that output's cotangent."""
    axes = gradient_axes(x, axis)
    spacings = [()] * len(axes) if not varargs else (
        [varargs] * len(axes) if len(varargs) == 1 else [(v,) for v in varargs])
    matrices = [gradient_matrix(_shape(x)[a], spacing, edge_order) for a, spacing in zip(
        axes, spacings, strict=True)]

    def vjp(g):
        pieces = [g] if len(axes) == 1 else list(g)
        total = None
        for a, matrix, piece in zip(axes, matrices, pieces, strict=True):
            back = anp.moveaxis(anp.tensordot(matrix, piece, axes=([0], [a])), 0, a)
            total = back if total is None else total + back
        return total

    return vjp


defvjp(anp.gradient, grad_gradient)


def grad_pad(ans, array, pad_width, mode="constant", **kwargs):
    """`pad` in constant mode puts `array` inside a frame of constants: its cotangent is the
    cotangent's middle, where `array` sits."""
    if mode != "constant":
        raise NotImplementedError(
            f"ad_core: no VJP rule for pad with mode={mode!r} (array of shape {_shape(array)}); "
            "only mode='constant' has one, as in HIPS/autograd")
    before = onp.broadcast_to(onp.asarray(pad_width, dtype=int), (anp.ndim(array), 2))[:, 0]
    index = tuple(slice(start, start + n) for start, n in zip(before, _shape(array), strict=True))
    return lambda g: g[index]


defvjp(anp.pad, grad_pad)


def sorting_index(x: Any, order: Any, axis: int | None) -> tuple:
    """The index `i` with `sort(x, axis) == x[i]`, given `order = argsort(x, axis)`."""
    grid = list(onp.indices(onp.shape(order), sparse=True))
    grid[axis % onp.ndim(order)] = order
    return tuple(grid)


def grad_sort(ans, x, axis=-1, kind=None, order=None):
    index = sorting_index(x, onp.argsort(getval(x), axis=axis, kind=kind, order=order), axis)
    return lambda g: anp.untake(g, index, _shape(x))


def grad_partition(ans, x, kth, axis=-1, kind="introselect", order=None):
    index = sorting_index(x, onp.argpartition(getval(x), kth, axis=axis, kind=kind, order=order), axis)
    return lambda g: anp.untake(g, index, _shape(x))


defvjp(anp.sort, grad_sort)
defvjp(anp.partition, grad_partition)
defvjp(anp.roll, lambda ans, x, shift, axis=None: lambda g: anp.roll(g, -onp.asarray(shift), axis))
defvjp(anp.broadcast_to, lambda ans, x, shape: unbroadcast_f(x, lambda g: g))


def grad_repeat(ans, x, repeats, axis=None):
    """Each output element is a copy of one input element: add the copies' cotangents back."""
    shape = _shape(x)
    size = math.prod(shape)

    def vjp(g):
        if axis is None:
            if onp.ndim(repeats) == 0:  # equal counts: the copies of each element are adjacent
                return anp.reshape(anp.sum(anp.reshape(g, (size, repeats)), axis=1), shape)
            owner = onp.repeat(onp.arange(size), repeats)
            return anp.reshape(anp.untake(g, owner, (size,)), shape)
        axis_ = axis % len(shape)
        if onp.ndim(repeats) == 0:  # fold the copies into an axis of their own and sum it
            split_shape = (*shape[: axis_ + 1], repeats, *shape[axis_ + 1 :])
            return anp.sum(anp.reshape(g, split_shape), axis=axis_ + 1)
        owner = onp.repeat(onp.arange(shape[axis_]), repeats)
        return anp.untake(g, (slice(None),) * axis_ + (owner,), shape)

    return vjp


def grad_tile(ans, x, reps):
    shape = _shape(x)

    def vjp(g):
        reps_ = (reps,) if onp.ndim(reps) == 0 else tuple(reps)
        full_shape = (1,) * (len(reps_) - len(shape)) + tuple(shape)
        reps_ = (1,) * (len(full_shape) - len(reps_)) + reps_
        interleaved = [n for pair in zip(reps_, full_shape, strict=False) for n in pair]
        summed = anp.sum(anp.reshape(g, interleaved), axis=tuple(range(0, 2 * len(reps_), 2)))
        return anp.reshape(summed, shape)

    return vjp


defvjp(anp.repeat, grad_repeat)
defvjp(anp.tile, grad_tile)


def grad_concatenate_args(argnum, ans, args, kwargs):
    axis, *arrays = args
    axis = axis % anp.ndim(ans)
    sizes = [anp.shape(array)[axis] for array in arrays]
    start = sum(sizes[: argnum - 1])
    index = (slice(None),) * axis + (slice(start, start + sizes[argnum - 1]),)
    if anp.metadata(arrays[argnum - 1])[3]:
        return lambda g: g[index]
    # A real array joined to complex ones gets a real cotangent, as a broadcast one does.
    return lambda g: anp.real(g[index]) if _iscomplex(g) else g[index]


defvjp_argnum(anp.concatenate_args, grad_concatenate_args)
# The pieces' cotangents (zeros for pieces nothing read) joined back in place.
defvjp(anp.split_pieces, lambda ans, ary, bounds, axis: lambda g: anp.concatenate(list(g), axis))
# `full(shape, fill_value)` broadcasts `fill_value` to `shape`: its VJP sums back (autograd's
# rule, `sum(g)`, is this for a scalar `fill_value`).
defvjp(
    anp.full,
    None,
    lambda ans, shape, fill_value, dtype=None, **kwargs: unbroadcast_f(fill_value, lambda g: g),
)
def _diag_matrix(g, shape, k):
    rows = onp.arange(anp.shape(g)[0]) + max(-k, 0)
    cols = onp.arange(anp.shape(g)[0]) + max(k, 0)
    return anp.untake(g, (rows, cols), shape)


defvjp(anp.diag, lambda ans, x, k=0: lambda g: (
    anp.diagonal(g, k) if anp.ndim(x) == 1 else _diag_matrix(g, _shape(x), k)))


def linspace_weights(ans: Any, num: int, endpoint: bool) -> Any:
    """The weight `t` of `stop` in each of `linspace`'s points, shaped to broadcast along axis 0."""
    weights = onp.linspace(0.0, 1.0, num, endpoint=endpoint)
    return weights.reshape((num,) + (1,) * (anp.ndim(ans) - 1))


# `linspace(start, stop, num)` is `start + (stop - start) * t` with `t` from 0 to 1 along axis 0.
defvjp(
    anp.linspace,
    lambda ans, start, stop, num=50, endpoint=True, **kwargs: unbroadcast_f(
        start, lambda g: anp.sum(g * (1 - linspace_weights(ans, num, endpoint)), axis=0)),
    lambda ans, start, stop, num=50, endpoint=True, **kwargs: unbroadcast_f(
        stop, lambda g: anp.sum(g * linspace_weights(ans, num, endpoint), axis=0)),
)


defvjp(anp.make_diagonal, lambda ans, D, offset=0, axis1=-1, axis2=-2: lambda g: anp.diagonal(
    g, 0, -1, -2))
def _diagonal_adjoint(g, shape, offset, axis1, axis2):
    """Place `g` (the diagonal along its last axis) back on the plane `(axis1, axis2)`: with
    those two axes moved to the end, the diagonal is `[..., i, i + offset]`."""
    if len(shape) == 2:
        return _diag_matrix(g, shape, offset)
    axis1, axis2 = axis1 % len(shape), axis2 % len(shape)
    others = [size for axis, size in enumerate(shape) if axis not in (axis1, axis2)]
    length = anp.shape(g)[-1]
    rows = onp.arange(length) + max(-offset, 0)
    cols = onp.arange(length) + max(offset, 0)
    moved = anp.untake(g, (Ellipsis, rows, cols), (*others, shape[axis1], shape[axis2]))
    return anp.moveaxis(moved, (-2, -1), (axis1, axis2))


defvjp(anp.diagonal, lambda ans, x, offset=0, axis1=0, axis2=1: lambda g: _diagonal_adjoint(
    g, _shape(x), offset, axis1, axis2))


def grad_trace(ans, x, offset=0):
    shape = _shape(x)

    def vjp(g):
        diagonal = onp.eye(shape[0], shape[1], offset).reshape(shape[:2] + (1,) * (len(shape) - 2))
        return diagonal * g

    return vjp


defvjp(anp.trace, grad_trace)
defvjp(anp.triu, lambda ans, x, k=0: lambda g: anp.triu(g, k))
defvjp(anp.tril, lambda ans, x, k=0: lambda g: anp.tril(g, k))
def _cast_back(g, x):
    _shape, _, dtype, iscomplex = anp.metadata(x)
    if not iscomplex:
        g = anp.real(g)
    return anp.astype(g, dtype)


defvjp(anp.astype, lambda ans, x, dtype, **kwargs: lambda g: _cast_back(g, x))


# =============================================================================================
# Indexing
# =============================================================================================

defvjp(anp.array_getitem, lambda ans, A, index: (
    lambda shape: lambda g: anp.untake(g, index, shape))(anp.shape(A)))
defvjp(anp.untake, lambda ans, g, index, shape: lambda h: anp.array_getitem(h, index))
def _untake_along(g, indices, axis, shape):
    if axis is None:
        return anp.reshape(anp.untake(g, indices, (int(onp.prod(shape)),)), shape)
    axis = axis % len(shape)
    index = (slice(None),) * axis + (indices,)
    return anp.untake(g, index, shape)


defvjp(anp.take, lambda ans, A, indices, axis=None: (
    lambda shape: lambda g: _untake_along(g, indices, axis, shape))(anp.shape(A)))


# =============================================================================================
# Complex numbers
# =============================================================================================

defvjp(anp.real, lambda ans, x: lambda g: _match_complex(x, g))
defvjp(anp.imag, lambda ans, x: lambda g: _match_complex(x, -1j * g))
defvjp(anp.conj, lambda ans, x: lambda g: anp.conj(g))
defvjp(anp.conjugate, lambda ans, x: lambda g: anp.conj(g))
defvjp(anp.angle, lambda ans, x: lambda g: _match_complex(
    x, g * anp.conj(x * 1j) / anp.abs(x) ** 2))
defvjp(anp.real_if_close, lambda ans, x: lambda g: _match_complex(x, g))


