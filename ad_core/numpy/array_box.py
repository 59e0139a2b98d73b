"""The box for arrays and numbers: it behaves like an ndarray, and every operation on it
goes through a wrapped, traced function."""

from __future__ import annotations

from typing import Any

import numpy as _np

from ..tracer import Box, getval
from . import wrapper as anp


def _conversion_error(box: ArrayBox, what: str) -> TypeError:
    return TypeError(
        f"ad_core: {what} a traced value (ArrayBox of shape {box.shape}) into a plain NumPy "
        "object, which would silently cut it out of the gradient. This happens with "
        "`a[i] = x` on an ndarray, `np.asarray(x)`, or float(x) while differentiating. "
        "Build the result functionally instead: anp.stack, anp.concatenate, anp.where, or "
        "collect values in a list and call anp.array(list)."
    )


def _refuse_out(box: ArrayBox, method: str, out: Any) -> None:
    if out is not None:
        raise TypeError(
            f"ad_core: {method}(..., out=...) of a traced value (ArrayBox of shape {box.shape}) "
            "would write it into a plain array in place, cutting it out of the gradient; "
            f"use the returned value instead (y = x.{method}(...))."
        )


class ArrayBox(Box):
    """A traced float or complex scalar or array."""

    __slots__ = ()
    __array_priority__ = 100.0

    @staticmethod
    def is_differentiable(value: Any) -> bool:
        return type(value) is not _np.ndarray or value.dtype.kind in "fc"

    # What a NumPy user reads off an array ------------------------------------------------
    @property
    def shape(self) -> tuple:
        return _np.shape(self._value)

    @property
    def ndim(self) -> int:
        return _np.ndim(self._value)

    @property
    def size(self) -> int:
        return _np.size(self._value)

    @property
    def dtype(self) -> _np.dtype:
        return _np.result_type(self._value)

    @property
    def T(self) -> ArrayBox:
        return anp.transpose(self)

    @property
    def real(self) -> ArrayBox:
        return anp.real(self)

    @property
    def imag(self) -> ArrayBox:
        return anp.imag(self)

    def __len__(self) -> int:
        return len(self._value)

    def __iter__(self):
        return (self[index] for index in range(len(self)))

    def __getitem__(self, index: Any) -> ArrayBox:
        return anp.array_getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            f"ad_core: item assignment into a traced array (ArrayBox of shape {self.shape}) is "
            "not supported: it would overwrite a value the gradient still needs. Build a new "
            "array instead, e.g. anp.where(mask, new, x), anp.concatenate([...]), or x + "
            "anp.eye(n)[i] * delta."
        )

    def __hash__(self) -> int:
        return id(self)

    # NumPy interplay: ufuncs on ndarrays and boxes dispatch back here ----------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            raise TypeError(
                f"ad_core: `y += x` (or numpy.{ufunc.__name__}(..., out=y)) writes a traced "
                f"value x into the plain ndarray y in place, which would cut it out of the "
                f"gradient. Write `y = y + x` instead, so that y becomes traced."
            )
        wrapped = getattr(anp, ufunc.__name__, None)
        if method != "__call__" or wrapped is None:
            raise TypeError(
                f"ad_core: numpy.{ufunc.__name__}.{method} is not supported on traced values"
            )
        return wrapped(*inputs, **kwargs)

    def __array__(self, dtype=None, copy=None):
        # To integers or booleans (`np.int64(x)`, as index arrays): piecewise constant, so
        # nothing is lost; autograd allows it too. A float copy would drop the derivative.
        if dtype is not None and _np.dtype(dtype).kind in "iub":
            return _np.asarray(self._value, dtype=dtype)
        raise _conversion_error(self, "converting")

    def __float__(self) -> float:
        raise _conversion_error(self, "converting")

    def __complex__(self) -> complex:
        raise _conversion_error(self, "converting")

    # Methods ------------------------------------------------------------------------------
    # NumPy's signatures, so that `np.sum(x)` (which calls `x.sum(axis=..., dtype=..., out=None)`)
    # works on a traced `x` too; only `out` is refused, as in-place writes are.
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        _refuse_out(self, "sum", out)
        return anp.sum(self, axis=axis, dtype=dtype, keepdims=keepdims, **kwargs)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        _refuse_out(self, "mean", out)
        return anp.mean(self, axis=axis, dtype=dtype, keepdims=keepdims, **kwargs)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        _refuse_out(self, "var", out)
        return anp.var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        _refuse_out(self, "std", out)
        return anp.std(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        _refuse_out(self, "max", out)
        return anp.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        _refuse_out(self, "min", out)
        return anp.min(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        _refuse_out(self, "prod", out)
        return anp.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        _refuse_out(self, "cumsum", out)
        return anp.cumsum(self, axis=axis, dtype=dtype)

    def reshape(self, *shape, **kwargs):
        if len(shape) == 1 and isinstance(shape[0], tuple | list):
            shape = tuple(shape[0])
        return anp.reshape(self, shape, **kwargs)

    def ravel(self):
        return anp.ravel(self)

    def flatten(self):
        return anp.ravel(self)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], tuple | list):
            axes = tuple(axes[0])
        return anp.transpose(self, axes or None)

    def swapaxes(self, axis1, axis2):
        return anp.swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        return anp.squeeze(self, axis)

    def dot(self, other):
        return anp.dot(self, other)

    def conj(self):
        return anp.conj(self)

    conjugate = conj

    def clip(self, a_min=None, a_max=None):
        return anp.clip(self, a_min, a_max)

    def repeat(self, repeats, axis=None):
        return anp.repeat(self, repeats, axis)

    def astype(self, dtype, **kwargs):
        return anp.astype(self, dtype)

    def item(self):
        raise _conversion_error(self, "calling .item() converts")

    def tolist(self):
        raise _conversion_error(self, "calling .tolist() converts")

    # Operators ------------------------------------------------------------------------------
    def __neg__(self): return anp.negative(self)
    def __pos__(self): return self
    def __abs__(self): return anp.abs(self)
    def __add__(self, other): return anp.add(self, other)
    def __radd__(self, other): return anp.add(other, self)
    def __sub__(self, other): return anp.subtract(self, other)
    def __rsub__(self, other): return anp.subtract(other, self)
    def __mul__(self, other): return anp.multiply(self, other)
    def __rmul__(self, other): return anp.multiply(other, self)
    def __truediv__(self, other): return anp.true_divide(self, other)
    def __rtruediv__(self, other): return anp.true_divide(other, self)
    def __pow__(self, other): return anp.power(self, other)
    def __rpow__(self, other): return anp.power(other, self)
    def __mod__(self, other): return anp.mod(self, other)
    def __rmod__(self, other): return anp.mod(other, self)
    def __matmul__(self, other): return anp.matmul(self, other)
    def __rmatmul__(self, other): return anp.matmul(other, self)

    # Comparisons look at values only: their boolean results carry no derivative.
    def __eq__(self, other): return _np.equal(self._value, getval(other))
    def __ne__(self, other): return _np.not_equal(self._value, getval(other))
    def __gt__(self, other): return _np.greater(self._value, getval(other))
    def __ge__(self, other): return _np.greater_equal(self._value, getval(other))
    def __lt__(self, other): return _np.less(self._value, getval(other))
    def __le__(self, other): return _np.less_equal(self._value, getval(other))


ARRAY_TYPES = [float, complex, _np.ndarray]
ARRAY_TYPES += [_np.float16, _np.float32, _np.float64, _np.longdouble]
ARRAY_TYPES += [_np.complex64, _np.complex128, _np.clongdouble]
for value_type in ARRAY_TYPES:
    ArrayBox.register(value_type)
