r"""`ad_core.scipy.signal`: HIPS/autograd's n-dimensional `convolve`, with rules in both modes.

`convolve(A, B, mode, axes, dot_axes)` convolves `A` with `B` along the pairs of axes in
`axes = (axes_A, axes_B)` (all axes of both when None), contracts the pairs in
`dot_axes = (dot_A, dot_B)` as `tensordot` would, and keeps every other axis of each. The
output's axes are: `A`'s kept axes, then `B`'s kept axes, then the convolved ones. Along a
convolved pair of lengths $n_A$ and $n_B$, with $k$ running over the contracted axes,
$$\operatorname{full}(A, B)[i_A, i_B, n] = \sum_k \sum_m A[i_A, k, m]\, B[i_B, k, n - m],
\qquad 0 \le n < n_A + n_B - 1,$$
and each `mode` keeps a window of it, as `scipy.signal.convolve` does: `'full'` all of it,
`'valid'` the $\lvert n_A - n_B\rvert + 1$ entries from $\min(n_A, n_B) - 1$ on (where one
array overlaps the other completely; one array must be at least as long as the other along
every convolved pair), `'same'` the $n_A$ entries from $\lfloor (n_B - 1)/2 \rfloor$ on
(centred, the length of `A`).

The map is linear in each argument, so its JVP is `convolve` of the tangent. Its VJP: the
window's transpose pads $\bar{Y}$ with zeros back to the full length, then
$$\bar{A}[i_A, k, m] = \sum_{i_B, n} \bar{Y}_{\text{full}}[i_A, i_B, n]\, B[i_B, k, n - m],$$
a `'valid'` convolution of $\bar{Y}_{\text{full}}$ with the flipped `B`, contracting `B`'s
kept axes; the same for $\bar{B}$ with the roles swapped. Both are built from `convolve`
itself, so every order of derivative is available.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as onp
from numpy.lib.stride_tricks import sliding_window_view

from .. import numpy as anp
from ..core import def_linear, defvjp
from ..tracer import primitive

__all__ = ["convolve"]

_MODES = ("full", "valid", "same")


class _Layout(NamedTuple):
    """The axes of one call, each tuple in the order the caller paired them."""

    conv_a: tuple[int, ...]
    conv_b: tuple[int, ...]
    dot_a: tuple[int, ...]
    dot_b: tuple[int, ...]
    keep_a: tuple[int, ...]
    keep_b: tuple[int, ...]


def _normalized(axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    return tuple(int(axis) % ndim for axis in axes)


def _layout(shape_a: tuple, shape_b: tuple, axes: Any, dot_axes: Any, mode: str) -> _Layout:
    if mode not in _MODES:
        raise ValueError(f"convolve: mode must be one of {_MODES}, not {mode!r}")
    ndim_a, ndim_b = len(shape_a), len(shape_b)
    if axes is None:
        if ndim_a != ndim_b:
            raise ValueError("convolve: with axes=None both arrays need the same number of axes")
        axes = (range(ndim_a), range(ndim_b))
    conv_a, conv_b = _normalized(axes[0], ndim_a), _normalized(axes[1], ndim_b)
    dot_a, dot_b = _normalized(dot_axes[0], ndim_a), _normalized(dot_axes[1], ndim_b)
    if len(conv_a) != len(conv_b) or len(dot_a) != len(dot_b):
        raise ValueError("convolve: axes and dot_axes must pair as many axes of A as of B")
    for name, used in (("A", conv_a + dot_a), ("B", conv_b + dot_b)):
        if len(set(used)) != len(used):
            raise ValueError(f"convolve: an axis of {name} is listed twice in axes and dot_axes")
    for i, j in zip(dot_a, dot_b, strict=True):
        if shape_a[i] != shape_b[j]:
            raise ValueError(f"convolve: dot axes {i} of A and {j} of B differ in length")
    if mode == "valid":
        longer_a = [shape_a[i] >= shape_b[j] for i, j in zip(conv_a, conv_b, strict=True)]
        shorter_a = [shape_a[i] <= shape_b[j] for i, j in zip(conv_a, conv_b, strict=True)]
        if not (all(longer_a) or all(shorter_a)):
            raise ValueError(
                "convolve: in 'valid' mode one array must be at least as long as the other "
                "along every convolved axis"
            )
    keep_a = tuple(i for i in range(ndim_a) if i not in conv_a + dot_a)
    keep_b = tuple(i for i in range(ndim_b) if i not in conv_b + dot_b)
    return _Layout(conv_a, conv_b, dot_a, dot_b, keep_a, keep_b)


def _window(n_a: int, n_b: int, mode: str) -> tuple[int, int]:
    """`(start, length)` of the part of the full convolution that `mode` keeps."""
    if mode == "full":
        return 0, n_a + n_b - 1
    if mode == "same":
        return (n_b - 1) // 2, n_a
    return min(n_a, n_b) - 1, abs(n_a - n_b) + 1


def _convolve(A: Any, B: Any, mode: str = "full", axes: Any = None, dot_axes: Any = ((), ())) -> Any:
    """The value: `A` padded with zeros, its sliding windows, and one `tensordot` with the
    flipped `B` over the windows and the contracted axes (only the kept part is computed)."""
    A, B = onp.asarray(A), onp.asarray(B)
    lay = _layout(A.shape, B.shape, axes, dot_axes, mode)
    a = onp.transpose(A, lay.keep_a + lay.dot_a + lay.conv_a)
    b = onp.transpose(B, lay.keep_b + lay.dot_b + lay.conv_b)
    n_conv = len(lay.conv_a)
    lengths_b = b.shape[b.ndim - n_conv:]
    b = b[(Ellipsis,) + (slice(None, None, -1),) * n_conv]
    first = a.ndim - n_conv
    pad = [(0, 0)] * first
    cuts = [slice(None)] * first
    for axis, n_b in enumerate(lengths_b):
        n_a = a.shape[first + axis]
        start, length = _window(n_a, n_b, mode)
        pad.append((n_b - 1, n_b - 1))
        cuts.append(slice(start, start + length + n_b - 1))
    windows = sliding_window_view(onp.pad(a, pad)[tuple(cuts)], lengths_b, axis=tuple(range(first, a.ndim)))
    n_keep_a, n_dot = len(lay.keep_a), len(lay.dot_a)
    window_axes = list(range(n_keep_a, n_keep_a + n_dot)) + list(range(a.ndim, windows.ndim))
    b_axes = list(range(len(lay.keep_b), b.ndim))
    out = onp.tensordot(windows, b, (window_axes, b_axes))
    # tensordot leaves (kept A, convolved, kept B): move the convolved axes last.
    n_keep_b = len(lay.keep_b)
    conv = list(range(n_keep_a, n_keep_a + n_conv))
    return onp.transpose(out, list(range(n_keep_a)) + [n_keep_a + n_conv + i for i in range(n_keep_b)] + conv)


_convolve.__name__ = _convolve.__qualname__ = "convolve"
_convolve_primitive = primitive(_convolve)


def convolve(in1: Any, in2: Any, mode: Any = "full", axes: Any = None, dot_axes: Any = ((), ())) -> Any:
    """See the module docstring. As in HIPS/autograd, `axes` and `dot_axes` may also follow
    `in2` positionally (autograd's order is `A, B, axes, dot_axes, mode`): a third positional
    argument that is not a string is read that way."""
    if not isinstance(mode, str):
        axes, dot_axes, mode = mode, axes if axes is not None else ((), ()), (
            dot_axes if isinstance(dot_axes, str) else "full")
    return _convolve_primitive(in1, in2, mode=mode, axes=axes, dot_axes=dot_axes)


convolve.vjps, convolve.jvps = _convolve_primitive.vjps, _convolve_primitive.jvps


def _zero_pad(x: Any, axis: int, before: int, after: int) -> Any:
    """`x` with zeros before and after along `axis` (traced: concatenation has rules)."""
    shape = list(anp.shape(x))
    pieces = []
    for size in (before, None, after):
        if size is None:
            pieces.append(x)
        elif size:
            shape[axis] = size
            pieces.append(onp.zeros(shape, anp.metadata(x)[2]))
    return anp.concatenate(pieces, axis=axis) if len(pieces) > 1 else x


def _vjp_convolve(argnum: int):
    def maker(ans, A, B, mode="full", axes=None, dot_axes=((), ())):
        shape_a, shape_b = anp.shape(A), anp.shape(B)
        lay = _layout(shape_a, shape_b, axes, dot_axes, mode)
        n_keep_a, n_keep_b, n_conv = len(lay.keep_a), len(lay.keep_b), len(lay.conv_a)
        out_keep_a = tuple(range(n_keep_a))
        out_keep_b = tuple(range(n_keep_a, n_keep_a + n_keep_b))
        out_conv = tuple(range(n_keep_a + n_keep_b, n_keep_a + n_keep_b + n_conv))
        if argnum == 0:
            other, conv_other, keep_other, out_keep_other = B, lay.conv_b, lay.keep_b, out_keep_b
            order = lay.keep_a + lay.dot_a + lay.conv_a
        else:
            other, conv_other, keep_other, out_keep_other = A, lay.conv_a, lay.keep_a, out_keep_a
            order = lay.keep_b + lay.dot_b + lay.conv_b
        flip = [slice(None)] * len(anp.shape(other))
        for axis in conv_other:
            flip[axis] = slice(None, None, -1)
        flip = tuple(flip)

        def vjp(g):
            for out_axis, i, j in zip(out_conv, lay.conv_a, lay.conv_b, strict=True):
                n_a, n_b = shape_a[i], shape_b[j]
                start, length = _window(n_a, n_b, mode)
                g = _zero_pad(g, out_axis, start, n_a + n_b - 1 - start - length)
            result = convolve(g, other[flip], "valid", axes=(out_conv, conv_other),
                              dot_axes=(out_keep_other, keep_other))
            return anp.transpose(result, tuple(onp.argsort(order)))

        return vjp

    return maker


defvjp(_convolve_primitive, _vjp_convolve(0), _vjp_convolve(1))
def_linear(_convolve_primitive)
