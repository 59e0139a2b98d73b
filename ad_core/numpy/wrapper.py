"""Every NumPy callable, wrapped: a primitive when it can carry a derivative, a plain
function (arguments unboxed) when its output is piecewise constant or describes a shape.

A wrapped function without a rule still computes its value; it fails only when a gradient
has to flow through it, with an error that names it.
"""

from __future__ import annotations

import builtins
import itertools
import math
import types
from collections.abc import Callable
from typing import Any

import numpy as _np

from ..tracer import Box, getval, notrace_primitive, primitive

# Outputs of these carry no derivative: shapes, dtypes, comparisons, rounding, index queries.
NOTRACE_FUNCTIONS = {
    _np.ndim, _np.shape, _np.size, _np.iscomplexobj, _np.isrealobj, _np.result_type,
    _np.zeros_like, _np.ones_like, _np.empty_like, _np.full_like,
    _np.floor, _np.ceil, _np.round, _np.rint, _np.around, _np.fix, _np.trunc, _np.sign,
    _np.all, _np.any, _np.argmax, _np.argmin, _np.argpartition, _np.argsort, _np.argwhere,
    _np.nonzero, _np.flatnonzero, _np.count_nonzero, _np.searchsorted, _np.floor_divide,
    _np.logical_and, _np.logical_or, _np.logical_not, _np.logical_xor,
    _np.isfinite, _np.isinf, _np.isnan, _np.isneginf, _np.isposinf, _np.signbit,
    _np.allclose, _np.isclose, _np.array_equal, _np.array_equiv,
    _np.greater, _np.greater_equal, _np.less, _np.less_equal, _np.equal, _np.not_equal,
    _np.iscomplex, _np.isreal, _np.isscalar, _np.shares_memory, _np.may_share_memory,
    _np.unravel_index, _np.ravel_multi_index, _np.bincount, _np.digitize, _np.unique,
    _np.histogram, _np.sort_complex, _np.array_repr, _np.array_str, _np.printoptions,
    _np.set_printoptions, _np.get_printoptions, _np.broadcast_shapes, _np.can_cast,
    _np.promote_types, _np.min_scalar_type, _np.issubdtype, _np.isdtype,
}

# Constructors whose output is a constant however they are called. (`full` is not one: its
# output is its `fill_value`, broadcast, and `linspace` is linear in `start` and `stop`: both
# have rules in `vjps.py` and `jvps.py`.)
CONSTANT_FUNCTIONS = {
    _np.zeros, _np.ones, _np.empty, _np.eye, _np.identity, _np.arange,
    _np.logspace, _np.geomspace, _np.indices, _np.tri, _np.meshgrid,
}


def wrap_namespace(old: dict[str, Any], new: dict[str, Any]) -> None:
    """Fill `new` with wrapped versions of the callables in `old`, and copy the rest.

    NumPy has aliases (`abs` is `absolute`): an alias gets the same wrapper, so a rule
    registered under one name holds under every name.
    """
    done: dict[int, Any] = {}
    for name, obj in old.items():
        if name.startswith("_"):
            continue
        if isinstance(obj, type | types.ModuleType) or not callable(obj):
            new[name] = obj
        elif id(obj) in done:
            new[name] = done[id(obj)]
        elif obj in NOTRACE_FUNCTIONS or obj in CONSTANT_FUNCTIONS:
            new[name] = done[id(obj)] = notrace_primitive(obj)
        else:
            new[name] = done[id(obj)] = primitive(DIRECT_IMPLEMENTATIONS.get(obj, obj))


def _count(shape: tuple, axis: Any) -> int:
    axes = (axis,) if isinstance(axis, int) else axis
    count = 1
    for axis_ in axes:
        count *= shape[axis_]
    return count


def _contains_box(items: Any) -> bool:
    if isinstance(items, Box):
        return True
    if isinstance(items, list | tuple):
        # `builtins.any`: the bare name is NumPy's wrapped `any`, which calls a generator true.
        return builtins.any(_contains_box(item) for item in items)
    return False


def _holds_boxes(a: Any) -> bool:
    return isinstance(a, list | tuple) and _contains_box(a)


def _of_array(general: Callable, a: Any, **kwargs: Any) -> Any:
    """`np.mean([x, x + 2])` with traced entries: the primitive sees a plain list (its boxes
    inside, out of the tracer's sight), so it calls itself again on `array(a)`, a traced array."""
    if kwargs.get("out") is None:
        kwargs.pop("out", None)
    return wrapped[general.__name__](array(a), **kwargs)


def _direct_reduction(reduce: Callable, general: Callable, divide_by_count: bool = False) -> Callable:
    """NumPy's `sum`, `mean`, `max`, `min` pass through Python dispatch code before reaching
    the ufunc reduction; for a plain float ndarray call the reduction directly (the same
    arithmetic in the same order, so the same bits), and leave every other case to NumPy."""

    def reduction(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if type(a) is not _np.ndarray or a.dtype.kind not in "fc" or out is not None or kwargs:
            if _holds_boxes(a):
                return _of_array(general, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)
            return general(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)
        result = reduce(a, axis, dtype, None, keepdims)
        if divide_by_count:
            count = a.size if axis is None else _count(a.shape, axis)
            result = _np.true_divide(result, count)
        return result

    reduction.__name__ = general.__name__
    reduction.__qualname__ = general.__qualname__
    reduction.__doc__ = general.__doc__
    return reduction


def _max_or_min(reduce: Callable, general: Callable) -> Callable:
    def reduction(a, axis=None, out=None, keepdims=False, **kwargs):
        if type(a) is not _np.ndarray or a.dtype.kind not in "fc" or out is not None or kwargs:
            if _holds_boxes(a):
                return _of_array(general, a, axis=axis, out=out, keepdims=keepdims, **kwargs)
            return general(a, axis=axis, out=out, keepdims=keepdims, **kwargs)
        return reduce(a, axis, None, None, keepdims)

    reduction.__name__ = general.__name__
    reduction.__qualname__ = general.__qualname__
    reduction.__doc__ = general.__doc__
    return reduction


def _direct_var(general: Callable, take_root: bool) -> Callable:
    """`var` / `std` of a float ndarray by the same steps as NumPy's own implementation."""

    def moment(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        if type(a) is not _np.ndarray or a.dtype.kind != "f" or dtype or out is not None or kwargs:
            if _holds_boxes(a):
                return _of_array(general, a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                                 keepdims=keepdims, **kwargs)
            return general(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kwargs)
        count = a.size if axis is None else _count(a.shape, axis)
        centred = a - _np.true_divide(_np.add.reduce(a, axis, None, None, True), count)
        _np.multiply(centred, centred, out=centred)
        # `builtins.max`: this module's globals hold NumPy's wrapped namespace, where `max` is `np.max`.
        result = _np.true_divide(
            _np.add.reduce(centred, axis, None, None, keepdims), builtins.max(count - ddof, 0)
        )
        return _np.sqrt(result) if take_root else result

    moment.__name__ = general.__name__
    moment.__qualname__ = general.__qualname__
    moment.__doc__ = general.__doc__
    return moment


def _direct_reshape(general: Callable) -> Callable:
    """`numpy.reshape` on an ndarray is the array's own method, minus NumPy's dispatch."""

    def reshape(a, *args, **kwargs):
        if type(a) is _np.ndarray:
            return a.reshape(*args, **kwargs)
        return general(a, *args, **kwargs)

    reshape.__name__ = general.__name__
    reshape.__qualname__ = general.__qualname__
    reshape.__doc__ = general.__doc__
    return reshape


DIRECT_IMPLEMENTATIONS = {
    _np.reshape: _direct_reshape(_np.reshape),
    _np.var: _direct_var(_np.var, take_root=False),
    _np.std: _direct_var(_np.std, take_root=True),
    _np.sum: _direct_reduction(_np.add.reduce, _np.sum),
    _np.mean: _direct_reduction(_np.add.reduce, _np.mean, divide_by_count=True),
    _np.max: _max_or_min(_np.maximum.reduce, _np.max),
    _np.amax: _max_or_min(_np.maximum.reduce, _np.amax),
    _np.min: _max_or_min(_np.minimum.reduce, _np.min),
    _np.amin: _max_or_min(_np.minimum.reduce, _np.amin),
}

wrapped: dict[str, Any] = {}
wrap_namespace(_np.__dict__, wrapped)
globals().update(wrapped)
numpy_version = _np.__version__  # autograd's name for the version of the NumPy it wraps


@primitive
def make_diagonal(D: Any, offset: int = 0, axis1: int = -1, axis2: int = -2) -> _np.ndarray:
    """HIPS/autograd's `make_diagonal`: matrices with the vectors along `D`'s last axis on their
    diagonals, `A[..., i, i] = D[..., i]`, the inverse of `diagonal(A, axis1=-1, axis2=-2)`.
    As in autograd, only `offset=0` with the last two axes."""
    if offset != 0 or {axis1, axis2} != {-1, -2}:
        raise NotImplementedError(
            f"ad_core.numpy.make_diagonal: only offset=0, axis1=-1, axis2=-2 are supported, got "
            f"offset={offset}, axis1={axis1}, axis2={axis2} for D of shape {_np.shape(D)}"
        )
    D = _np.asarray(D)
    if D.ndim == 0:
        raise ValueError("ad_core.numpy.make_diagonal: D must have at least one axis, got shape ()")
    return D[..., None] * _np.eye(D.shape[-1], dtype=D.dtype)


def metadata(A: Any) -> tuple[tuple, int, _np.dtype, bool]:
    """What a rule needs to know about an input to give a cotangent back to it:
    `(shape, ndim, dtype, iscomplex)`."""
    if type(A) is not _np.ndarray:
        # Numbers and nested lists too (`anp.dot(x, [1.0, 2.0])`): NumPy's view of them.
        A = _np.asarray(getval(A))
    dtype = A.dtype
    return A.shape, A.ndim, dtype, dtype.kind == "c"


# ---------------------------------------------------------------------------------------------
# Functions whose arguments are sequences of arrays: the boxes sit inside a list, where a
# primitive cannot see them, so the sequence is spread into positional arguments.
# ---------------------------------------------------------------------------------------------


@primitive
def concatenate_args(axis: int, *arrays: Any) -> _np.ndarray:
    return _np.concatenate(arrays, axis)


def concatenate(arrays, axis: int = 0) -> Any:
    """`numpy.concatenate`, traced through every array of the sequence."""
    return concatenate_args(axis, *arrays)


def stack(arrays, axis: int = 0) -> Any:
    """`numpy.stack`: add an axis to each array, then concatenate along it."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("ad_core.numpy.stack: need at least one array to stack")
    ndim = _np.ndim(getval(arrays[0]))
    axis = axis % (ndim + 1)
    return concatenate([wrapped["expand_dims"](array, axis) for array in arrays], axis)


def hstack(arrays) -> Any:
    arrays = [wrapped["atleast_1d"](array) for array in arrays]
    return concatenate(arrays, 0 if _np.ndim(getval(arrays[0])) == 1 else 1)


def vstack(arrays) -> Any:
    return concatenate([wrapped["atleast_2d"](array) for array in arrays], 0)


row_stack = vstack  # NumPy's deprecated alias, which HIPS/autograd still differentiates


def column_stack(arrays) -> Any:
    columns = [
        wrapped["reshape"](a, (-1, 1)) if _np.ndim(getval(a)) < 2 else a for a in arrays
    ]
    return concatenate(columns, 1)


class _Concatenator:
    """`r_[a, b, ...]` and `c_[a, b, ...]`: NumPy's own when nothing inside is traced. With
    traced values, each piece is first made what NumPy would make of it (a slice becomes its
    `arange`, a number a one-element array; `c_` turns a vector into a column), then all of
    them are concatenated with the traced `concatenate`, along the first axis for `r_` and
    the last for `c_`."""

    def __init__(self, numpy_concatenator: Any, as_columns: bool) -> None:
        self.numpy_concatenator = numpy_concatenator
        self.as_columns = as_columns

    def __getitem__(self, key: Any) -> Any:
        pieces = key if isinstance(key, tuple) else (key,)
        if not _contains_box(list(pieces)):
            return self.numpy_concatenator[key]
        if builtins.any(isinstance(piece, str) for piece in pieces):
            raise NotImplementedError(
                "ad_core.numpy: r_ and c_ with a directive string (such as '0,2') are not traced; "
                "use anp.concatenate or anp.stack on traced values"
            )
        arrays = [self._piece(piece) for piece in pieces]
        return concatenate(arrays, -1 if self.as_columns else 0)

    def _piece(self, piece: Any) -> Any:
        if not isinstance(piece, Box):
            return self.numpy_concatenator[piece]
        piece = wrapped["atleast_1d"](piece)
        if self.as_columns and _np.ndim(getval(piece)) == 1:
            return wrapped["reshape"](piece, (-1, 1))
        return piece


r_ = _Concatenator(_np.r_, as_columns=False)
c_ = _Concatenator(_np.c_, as_columns=True)


@primitive
def split_pieces(ary: Any, bounds: tuple, axis: int) -> list:
    """The slices of `ary` between consecutive `bounds` along `axis`, as one primitive whose
    output is a list: traced, it is a sequence box, so a function may return the pieces
    themselves and still be differentiated (in both modes)."""
    return [ary[(slice(None),) * axis + (slice(start, stop),)] for start, stop in itertools.pairwise(bounds)]


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """`numpy.array_split`, traced through every piece (`split_pieces`). `N` sections of an axis
    of length `L` are as equal as can be: the first `L % N` get one entry more."""
    value = getval(ary)
    axis = axis % _np.ndim(value)
    length = _np.shape(value)[axis]
    if _np.ndim(indices_or_sections) == 0:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("ad_core.numpy.array_split: number of sections must be larger than 0")
        size, extra = divmod(length, sections)
        bounds = list(itertools.accumulate([0] + [size + 1] * extra + [size] * (sections - extra)))
    else:
        bounds = [0, *indices_or_sections, length]
    return split_pieces(ary, tuple(bounds), axis)


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """`numpy.split`: `array_split`, which refuses sections of unequal length."""
    value = getval(ary)
    length = _np.shape(value)[axis % _np.ndim(value)]
    if _np.ndim(indices_or_sections) == 0 and length % int(indices_or_sections):
        raise ValueError(
            f"ad_core.numpy.split: an axis of length {length} does not split into "
            f"{int(indices_or_sections)} equal sections"
        )
    return array_split(ary, indices_or_sections, axis)


def _split_along(name: str, axis: int, min_ndim: int) -> Callable:
    def split_along(ary: Any, indices_or_sections: Any) -> list:
        ndim = _np.ndim(getval(ary))
        if ndim < min_ndim:
            raise ValueError(f"ad_core.numpy.{name}: only works on arrays of {min_ndim} or more dimensions")
        return split(ary, indices_or_sections, axis if ndim > 1 else 0)

    split_along.__name__ = split_along.__qualname__ = name
    split_along.__doc__ = f"`numpy.{name}`: `split` along axis {axis}, traced through each piece."
    return split_along


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """`numpy.append`: concatenate, after flattening both when no axis is given."""
    arr, values = array(arr), array(values)  # lists too, traced ones included, as NumPy does
    if axis is None:
        return concatenate([wrapped["ravel"](arr), wrapped["ravel"](values)], 0)
    return concatenate([arr, values], axis)


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """`numpy.select` as nested `where`s, so that traced choices (and a traced default) carry
    their derivatives: the first true condition wins, hence the last one is applied first."""
    if len(condlist) != len(choicelist):
        raise ValueError("ad_core.numpy.select: list of cases must be same length as list of conditions")
    result = default
    for condition, choice in reversed(list(zip(condlist, choicelist, strict=True))):
        result = wrapped["where"](condition, choice, result)
    return result


def array(A: Any, *args: Any, **kwargs: Any) -> Any:
    """`numpy.array`, which also accepts (nested) lists holding traced values."""
    if isinstance(A, Box):
        if isinstance(getval(A), list | tuple):  # a traced list (an argument being differentiated)
            return stack([array(item) for item in A])
        return A
    if isinstance(A, list | tuple) and _contains_box(A):
        return stack([array(item) for item in A])
    return _np.array(A, *args, **kwargs)


_where_primitive = wrapped["where"]


def _holds_arrays(value: Any) -> bool:
    if isinstance(value, Box | _np.ndarray | _np.generic):
        return True
    return isinstance(value, list | tuple) and builtins.any(_holds_arrays(item) for item in value)


def where(condition: Any, *args: Any, **kwargs: Any) -> Any:
    """`numpy.where` with HIPS/autograd's conventions: `x` and `y` may be passed by keyword,
    `where(condition)` alone is `nonzero(condition)`, and when nothing is an array or traced
    (plain numbers and lists) the result is plain Python as well: `where(True, 1, 2)` is `1`."""
    if not args and not kwargs:
        return _np.where(getval(condition))
    unknown = set(kwargs) - {"x", "y"}
    if unknown or len(args) + len(kwargs) != 2:
        raise ValueError(
            "ad_core.numpy.where: give both x and y, or neither; got "
            f"{len(args)} positional argument(s) after condition and keywords {sorted(kwargs)}"
        )
    x = args[0] if args else kwargs["x"]
    y = args[1] if len(args) > 1 else kwargs["y"]
    if _holds_arrays(condition) or _holds_arrays(x) or _holds_arrays(y):
        return _where_primitive(condition, x, y)
    result = _np.where(condition, x, y)
    return result.tolist() if isinstance(result, _np.ndarray) else result


# The rules live on the primitive; registering one on `where` registers it there.
where.vjps, where.jvps, where.fun = _where_primitive.vjps, _where_primitive.jvps, _where_primitive.fun
where.is_primitive = True


asarray = array
concat = concatenate


@primitive
def array_getitem(A: Any, index: Any) -> Any:
    """`A[index]` as a primitive, for basic and advanced indexing alike."""
    return A[index]


@primitive
def untake(g: Any, index: Any, shape: tuple) -> _np.ndarray:
    """The adjoint of `A[index]`: scatter `g` into zeros, adding where indices repeat."""
    result = _np.zeros(shape, _np.result_type(g))
    if type(index) is _np.ndarray and index.dtype == _np.intp and len(shape) > 1:
        # Whole rows picked by one integer array (an embedding lookup): np.add.at is several
        # times faster on flat positions, row * row_size + column, and adds the same numbers
        # in the same order. A negative row gives a negative position that wraps the same way.
        row_size = math.prod(shape[1:])
        flat = (index.reshape(-1, 1) * row_size + _np.arange(row_size)).reshape(-1)
        _np.add.at(result.reshape(-1), flat, _np.ravel(g))
        return result
    _np.add.at(result, index, g)
    return result


__all__ = [
    *wrapped,
    "append", "array", "array_getitem", "array_split", "asarray", "c_", "column_stack", "concat",
    "concatenate", "concatenate_args", "dsplit", "hsplit", "hstack", "make_diagonal", "metadata",
    "numpy_version", "row_stack", "select",
    "r_", "split", "split_pieces", "stack", "untake", "vsplit", "vstack",
]
