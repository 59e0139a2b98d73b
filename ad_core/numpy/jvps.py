"""Forward-mode rules for NumPy: for each primitive and argument, `(g, ans, *args) -> tangent`.

Sections, in the same order as `vjps.py`: shape helpers, arithmetic, elementwise functions,
reductions, linear algebra, shape operations, indexing, complex numbers. Where `vjps.py` sums
a cotangent down to an input's shape, this file broadcasts a tangent up to the output's shape.
"""

from __future__ import annotations

from typing import Any

import numpy as onp

from ..core import def_linear, defjvp, defjvp_argnum, vspace
from ..tracer import getval
from . import wrapper as anp
from .vjps import (
    balanced_eq,
    exponent_below,
    linspace_weights,
    reduction_layout,
    replace_zero,
    sorting_index,
)

# =============================================================================================
# Shape helpers: a broadcast input's tangent is copied to every position it reaches
# =============================================================================================


def broadcast(x: Any, target_meta: tuple, broadcast_idx: int = 0) -> Any:
    r"""Expand the tangent `x` to the shape in `target_meta`: the forward twin of
    `unbroadcast`.

    New leading axes are inserted, then every size-1 axis is repeated to the target's
    size; a complex target makes the tangent complex.
    """
    target_shape, target_ndim, _dtype, target_iscomplex = target_meta
    while anp.ndim(x) < target_ndim:
        x = anp.expand_dims(x, broadcast_idx)
    for axis, size in enumerate(anp.shape(x)):
        if size == 1 and target_shape[axis] != 1:
            x = anp.repeat(x, target_shape[axis], axis=axis)
    if target_iscomplex and not anp.iscomplexobj(x):
        x = anp.add(x, 0j)  # a primitive call, like every other stage, so that it is traced
    return x


def broadcast_to_output(tangent: Any, ans: Any) -> Any:
    """A tangent contribution may be smaller than the output it belongs to; expand it."""
    if anp.shape(tangent) == anp.shape(ans):
        return tangent
    return broadcast(tangent, anp.metadata(ans))


# =============================================================================================
# Arithmetic
# =============================================================================================

def_linear(anp.negative)
defjvp(anp.add,
       lambda g, ans, x, y: broadcast_to_output(g, ans),
       lambda g, ans, x, y: broadcast_to_output(g, ans))
defjvp(anp.subtract,
       lambda g, ans, x, y: broadcast_to_output(g, ans),
       lambda g, ans, x, y: broadcast_to_output(-g, ans))
def_linear(anp.multiply)
defjvp(anp.true_divide,
       lambda g, ans, x, y: broadcast_to_output(g / y, ans),
       lambda g, ans, x, y: broadcast_to_output(-g * ans / y, ans))
defjvp(anp.power,
       lambda g, ans, x, y: broadcast_to_output(g * y * x ** exponent_below(y), ans),
       lambda g, ans, x, y: broadcast_to_output(g * anp.log(replace_zero(x, 1.0)) * ans, ans))
for _modulo in (anp.mod, anp.remainder):
    defjvp(_modulo,
           lambda g, ans, x, y: broadcast_to_output(g, ans),
           lambda g, ans, x, y: broadcast_to_output(-g * anp.floor(x / y), ans))
for _extremum in (anp.maximum, anp.minimum, anp.fmax, anp.fmin):
    defjvp(_extremum,
           lambda g, ans, x, y: broadcast_to_output(g * balanced_eq(x, ans, y), ans),
           lambda g, ans, x, y: broadcast_to_output(g * balanced_eq(y, ans, x), ans))
defjvp(anp.logaddexp,
       lambda g, ans, x, y: broadcast_to_output(g * anp.exp(x - ans), ans),
       lambda g, ans, x, y: broadcast_to_output(g * anp.exp(y - ans), ans))
defjvp(anp.logaddexp2,
       lambda g, ans, x, y: broadcast_to_output(g * 2 ** (x - ans), ans),
       lambda g, ans, x, y: broadcast_to_output(g * 2 ** (y - ans), ans))
defjvp(anp.arctan2,
       lambda g, ans, x, y: broadcast_to_output(g * y / (x**2 + y**2), ans),
       lambda g, ans, x, y: broadcast_to_output(g * -x / (x**2 + y**2), ans))
defjvp(anp.hypot,
       lambda g, ans, x, y: broadcast_to_output(g * x / ans, ans),
       lambda g, ans, x, y: broadcast_to_output(g * y / ans, ans))
defjvp(anp.where, None,
       lambda g, ans, c, x=None, y=None: broadcast_to_output(anp.where(c, g, 0.0), ans),
       lambda g, ans, c, x=None, y=None: broadcast_to_output(anp.where(c, 0.0, g), ans))

# =============================================================================================
# Elementwise functions
# =============================================================================================

defjvp(anp.exp, lambda g, ans, x: ans * g)
defjvp(anp.exp2, lambda g, ans, x: ans * onp.log(2) * g)
defjvp(anp.expm1, lambda g, ans, x: (ans + 1) * g)
defjvp(anp.log, lambda g, ans, x: g / x)
defjvp(anp.log2, lambda g, ans, x: g / (x * onp.log(2)))
defjvp(anp.log10, lambda g, ans, x: g / (x * onp.log(10)))
defjvp(anp.log1p, lambda g, ans, x: g / (x + 1))
defjvp(anp.sqrt, lambda g, ans, x: g * 0.5 / ans)
defjvp(anp.cbrt, lambda g, ans, x: g / (3 * ans**2))
defjvp(anp.square, lambda g, ans, x: g * 2 * x)
defjvp(anp.reciprocal, lambda g, ans, x: -g / x**2)
defjvp(anp.absolute,
       lambda g, ans, x: anp.real(g * replace_zero(anp.conj(x), 0.0)) / replace_zero(ans, 1.0))
defjvp(anp.fabs, lambda g, ans, x: g * anp.sign(x))
defjvp(anp.sin, lambda g, ans, x: g * anp.cos(x))
defjvp(anp.cos, lambda g, ans, x: -g * anp.sin(x))
defjvp(anp.tan, lambda g, ans, x: g / anp.cos(x) ** 2)
defjvp(anp.arcsin, lambda g, ans, x: g / anp.sqrt(1 - x**2))
defjvp(anp.arccos, lambda g, ans, x: -g / anp.sqrt(1 - x**2))
defjvp(anp.arctan, lambda g, ans, x: g / (1 + x**2))
defjvp(anp.sinh, lambda g, ans, x: g * anp.cosh(x))
defjvp(anp.cosh, lambda g, ans, x: g * anp.sinh(x))
defjvp(anp.tanh, lambda g, ans, x: g * (1 - ans**2))
defjvp(anp.arcsinh, lambda g, ans, x: g / anp.sqrt(x**2 + 1))
defjvp(anp.arccosh, lambda g, ans, x: g / anp.sqrt(x**2 - 1))
defjvp(anp.arctanh, lambda g, ans, x: g / (1 - x**2))
def_linear(anp.deg2rad)
def_linear(anp.rad2deg)
def_linear(anp.radians)
def_linear(anp.degrees)
defjvp(anp.nan_to_num, lambda g, ans, x, *args, **kwargs: g * anp.isfinite(x))
defjvp(anp.sinc, lambda g, ans, x: g * (anp.cos(onp.pi * x) * onp.pi * x - anp.sin(onp.pi * x))
       / (onp.pi * replace_zero(x, 1.0) ** 2) * (x != 0))
defjvp(anp.clip,
       lambda g, ans, x, a_min=None, a_max=None: g * anp.logical_and(ans != a_min, ans != a_max),
       None, None)

# =============================================================================================
# Reductions
# =============================================================================================

def_linear(anp.sum)
def_linear(anp.mean)
def_linear(anp.cumsum)


def jvp_var(g, ans, x, axis=None, ddof=0, keepdims=False, dtype=None):
    _, count = reduction_layout(anp.shape(x), axis)
    centred = x - anp.mean(x, axis=axis, keepdims=True)
    if anp.iscomplexobj(centred):  # conj of a real array would only copy it
        centred = anp.conj(centred)
    return 2.0 * anp.sum(anp.real(g * centred), axis=axis, keepdims=keepdims) / (count - ddof)


def jvp_std(g, ans, x, axis=None, ddof=0, keepdims=False, dtype=None):
    # A zero spread has a zero tangent (every centred entry is 0), not 0/0.
    return jvp_var(g, ans**2, x, axis=axis, ddof=ddof, keepdims=keepdims) / (2 * replace_zero(ans, 1.0))


def jvp_chooser(g, ans, x, axis=None, keepdims=False):
    kept_shape, _ = reduction_layout(anp.shape(x), axis)
    winners = x == anp.reshape(ans, kept_shape)
    share = winners / winners.sum(axis=axis, keepdims=True)  # booleans, never traced
    return anp.sum(g * share, axis=axis, keepdims=keepdims)


def jvp_prod(g, ans, x, axis=None, keepdims=False, dtype=None):
    return ans * anp.sum(g / x, axis=axis, keepdims=keepdims)


defjvp(anp.var, jvp_var)
defjvp(anp.std, jvp_std)
for _chooser in (anp.max, anp.min, anp.amax, anp.amin):
    defjvp(_chooser, jvp_chooser)
defjvp(anp.prod, jvp_prod)

# =============================================================================================
# Linear algebra: every product is linear in each factor
# =============================================================================================

for _product in (anp.dot, anp.matmul, anp.tensordot, anp.outer, anp.inner, anp.kron, anp.cross):
    def_linear(_product)
def_linear(anp.einsum)

# =============================================================================================
# Shape operations
# =============================================================================================

for _reshaping in (anp.reshape, anp.ravel, anp.squeeze, anp.expand_dims, anp.atleast_1d,
                   anp.atleast_2d, anp.atleast_3d, anp.transpose, anp.swapaxes, anp.moveaxis,
                   anp.flip, anp.roll, anp.broadcast_to, anp.repeat, anp.tile,
                   anp.diag, anp.diagonal, anp.trace, anp.triu, anp.tril, anp.flipud,
                   anp.fliplr, anp.rot90, anp.rollaxis, anp.diff, anp.split_pieces,
                   anp.make_diagonal, anp.gradient):
    def_linear(_reshaping)


def jvp_pad(g, ans, array, pad_width, mode="constant", **kwargs):
    """`pad` copies entries of `array` (and, in constant mode, a frame of constants, whose
    tangent is zero): the tangent is padded the same way."""
    if mode == "constant":
        return anp.pad(g, pad_width, mode)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return anp.pad(g, pad_width, mode, **kwargs)
    raise NotImplementedError(
        f"ad_core: no JVP rule for pad with mode={mode!r} (array of shape {anp.shape(array)}); "
        "constant, edge, reflect, symmetric and wrap have one")


defjvp(anp.pad, jvp_pad)


def jvp_concatenate_args(argnum, g, ans, args, kwargs):
    """Concatenation is linear in all its arrays jointly: the others contribute zeros."""
    axis, *arrays = args
    pieces = [g if i == argnum - 1 else anp.zeros_like(a) for i, a in enumerate(arrays)]
    return anp.concatenate_args(axis, *pieces)


defjvp_argnum(anp.concatenate_args, jvp_concatenate_args)
defjvp(
    anp.full,
    None,
    lambda g, ans, shape, fill_value, dtype=None, **kwargs: anp.full(shape, g, dtype=anp.result_type(ans)),
)
defjvp(
    anp.linspace,
    lambda g, ans, start, stop, num=50, endpoint=True, **kwargs: anp.broadcast_to(
        g * (1 - linspace_weights(ans, num, endpoint)), anp.shape(ans)),
    lambda g, ans, start, stop, num=50, endpoint=True, **kwargs: anp.broadcast_to(
        g * linspace_weights(ans, num, endpoint), anp.shape(ans)),
)
defjvp(anp.sort, lambda g, ans, x, axis=-1, kind=None, order=None: g[sorting_index(
    x, onp.argsort(getval(x), axis=axis, kind=kind, order=order), axis)])
defjvp(anp.partition, lambda g, ans, x, kth, axis=-1, kind="introselect", order=None: g[sorting_index(
    x, onp.argpartition(getval(x), kth, axis=axis, kind=kind, order=order), axis)])
def _cast_like(g: Any, ans: Any) -> Any:
    if not vspace(ans).iscomplex:
        g = anp.real(g)
    return anp.astype(g, anp.metadata(ans)[2])


defjvp(anp.astype, lambda g, ans, x, dtype, **kwargs: _cast_like(g, ans))


# =============================================================================================
# Indexing
# =============================================================================================

def_linear(anp.array_getitem)
def_linear(anp.untake)
def_linear(anp.take)

# =============================================================================================
# Complex numbers
# =============================================================================================

def_linear(anp.real)
def_linear(anp.imag)
def_linear(anp.conj)
def_linear(anp.conjugate)
def_linear(anp.real_if_close)
defjvp(anp.angle, lambda g, ans, x: anp.real(g * anp.conj(x * 1j) / anp.abs(x) ** 2))
