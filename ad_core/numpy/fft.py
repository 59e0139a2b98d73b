r"""`ad_core.numpy.fft`: NumPy's discrete Fourier transforms, traced.

Every transform here is linear, so its JVP is the transform applied to the tangent, and its
VJP is its transpose applied to the cotangent $\bar{Y}$:

- `fft`, `ifft`, `fft2`, `ifft2`, `fftn`, `ifftn`: the same transform (the DFT matrix is
  symmetric), then cut or zero-padded back to the input's length;
- `rfft`, `rfft2`, `rfftn`: zero-pad $\bar{Y}$ from the half spectrum to the full length,
  `fftn`, keep the real part;
- `irfft`, `irfft2`, `irfftn`: `rfft` of $\bar{Y}$ with the dual normalisation, conjugated,
  doubled except at the frequencies that stand only for themselves (0 and, for an even
  length, the last), then `ifftn` along the other axes;
- `fftshift`, `ifftshift`: the inverse permutation.

Complex cotangents follow this engine's convention (HIPS/autograd's): for a real loss $L$ of
$z = x + iy$ the cotangent is $\partial L/\partial x - i\, \partial L/\partial y$, so a
$\mathbb{C}$-linear map $y = M z$ has VJP $M^\top \bar{y}$; a real input keeps the real part.

`hfft` and `ihfft` have no rules: they compute their values and fail only when a derivative
has to flow through them, with an error that names them. Reverse mode refuses a transform
that lists the same axis twice (`NotImplementedError`); HIPS/autograd 1.9.1 refuses it for
the real transforms, and for the complex ones it checks only `axis`, not `axes`, and
differentiates them. Forward mode applies the transform to the tangent, which is exact there
too.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as onp

from ..core import def_linear, defvjp
from . import wrapper as anp
from .wrapper import wrap_namespace

wrapped: dict[str, Any] = {}
wrap_namespace(onp.fft.__dict__, wrapped)
globals().update(wrapped)
__all__ = sorted(wrapped)


# =============================================================================================
# Which axes a transform acts on, and how long they are
# =============================================================================================


def _layout(name: str, x: Any, args: tuple, kwargs: dict) -> tuple[list[int], list[int] | None, Any]:
    """`(axes, s, norm)` of a call `numpy.fft.<name>(x, *args, **kwargs)`, with the axes
    non-negative and `s` the requested lengths along them (None: the input's lengths)."""
    bound = inspect.signature(getattr(onp.fft, name)).bind(x, *args, **kwargs)
    bound.apply_defaults()
    call = bound.arguments
    ndim = anp.ndim(x)
    if "axis" in call:  # the one-dimensional transforms
        axes, s = [call["axis"]], None if call["n"] is None else [call["n"]]
    else:
        s = None if call["s"] is None else list(call["s"])
        axes = call["axes"]
        if axes is None:
            axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    axes = [axis % ndim for axis in axes]
    if len(set(axes)) != len(axes):
        raise NotImplementedError(
            f"ad_core: no derivative rule for {name} with a repeated axis (axes={axes})"
        )
    return axes, s, call["norm"]


def _fit(x: Any, shape: tuple) -> Any:
    """Cut `x` down, or pad it with zeros at the end, to `shape` (traced: indexing and
    concatenation have rules). Padding and cutting are each other's transposes."""
    for axis, size in enumerate(shape):
        current = anp.shape(x)[axis]
        if current > size:
            x = x[(slice(None),) * axis + (slice(0, size),)]
        elif current < size:
            pad_shape = list(anp.shape(x))
            pad_shape[axis] = size - current
            x = anp.concatenate([x, onp.zeros(pad_shape, anp.metadata(x)[2])], axis=axis)
    return x


def _like_input(x_meta: tuple, cotangent: Any) -> Any:
    """A real input gets the real part of a complex cotangent."""
    return cotangent if x_meta[3] else anp.real(cotangent)


_DUAL_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}

# =============================================================================================
# Complex-to-complex transforms: fft, ifft, fft2, ifft2, fftn, ifftn
# =============================================================================================


def _complex_transform_vjp(name: str):
    r"""$Y = F\, \operatorname{fit}(X)$ with $F$ the (scaled) DFT along the axes, which is
    symmetric: $\bar{X} = \operatorname{fit}^\top(F \bar{Y})$, where the transpose of cutting
    or padding to the requested lengths is padding or cutting back."""
    def maker(ans, x, *args, **kwargs):
        _layout(name, x, args, kwargs)
        x_meta = anp.metadata(x)
        transform = wrapped[name]
        return lambda g: _like_input(x_meta, _fit(transform(g, *args, **kwargs), x_meta[0]))

    return maker


# =============================================================================================
# Real-input transforms: rfft, rfft2, rfftn
# =============================================================================================


def _real_transform_vjp(name: str):
    r"""`rfftn` keeps the first $\lfloor n/2 \rfloor + 1$ outputs of `fftn` along the last axis:
    $Y = P F\, \operatorname{fit}(X)$. Its transpose zero-pads $\bar{Y}$ back to length $n$
    ($P^\top$), applies the symmetric $F$, and keeps the real part, because $X$ is real. This
    holds for odd lengths too."""
    def maker(ans, x, *args, **kwargs):
        axes, s, norm = _layout(name, x, args, kwargs)
        x_meta = anp.metadata(x)
        full_length = s[-1] if s is not None else x_meta[0][axes[-1]]

        def vjp(g):
            spectrum_shape = list(anp.shape(g))
            spectrum_shape[axes[-1]] = full_length
            full = wrapped["fftn"](_fit(g, tuple(spectrum_shape)), axes=axes, norm=norm)
            return anp.real(_fit(full, x_meta[0]))

        return vjp

    return maker


# =============================================================================================
# Real-output transforms: irfft, irfft2, irfftn
# =============================================================================================


def _once_weights(n: int, half: int) -> onp.ndarray:
    """How often each stored frequency of a Hermitian spectrum of length `n` counts: twice (it
    stands for itself and its mirror image), except frequency 0 and, for even `n`, `n / 2`."""
    weights = onp.full(half, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return weights


def _inverse_real_transform_vjp(name: str):
    r"""`irfftn` is `ifft` along all the axes but the last, then `irfft` along the last. `irfft`
    of a half spectrum $a$ of length $m = \lfloor n/2 \rfloor + 1$ is, with scale $s$ ($1/n$,
    $1/\sqrt{n}$ or $1$ for `norm` backward, ortho, forward),
    $$y_t = s \sum_{k<m} c_k\, \operatorname{Re}\big(a_k e^{2\pi i k t / n}\big),$$
    with $c_k = 1$ for the frequencies that appear once (0, and $n/2$ for even $n$), else 2.
    Its cotangent is $\bar{a}_k = c_k\, \overline{\operatorname{rfft}(\bar{y})_k}$ with the dual
    normalisation (scale $s$ again); the `ifft` along the other axes transposes to itself.
    """
    def maker(ans, x, *args, **kwargs):
        axes, s, norm = _layout(name, x, args, kwargs)
        x_meta = anp.metadata(x)
        last = axes[-1]
        n = s[-1] if s is not None else 2 * (x_meta[0][last] - 1)
        weights_shape = [1] * x_meta[1]
        weights_shape[last] = n // 2 + 1
        weights = _once_weights(n, n // 2 + 1).reshape(weights_shape)

        def vjp(g):
            half = anp.conj(wrapped["rfft"](g, n=n, axis=last, norm=_DUAL_NORM[norm])) * weights
            if len(axes) > 1:
                half = wrapped["ifftn"](half, axes=axes[:-1], norm=norm)
            return _like_input(x_meta, _fit(half, x_meta[0]))

        return vjp

    return maker


# =============================================================================================
# Registration
# =============================================================================================

for _name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"):
    defvjp(wrapped[_name], _complex_transform_vjp(_name))
for _name in ("rfft", "rfft2", "rfftn"):
    defvjp(wrapped[_name], _real_transform_vjp(_name))
for _name in ("irfft", "irfft2", "irfftn"):
    defvjp(wrapped[_name], _inverse_real_transform_vjp(_name))
defvjp(wrapped["fftshift"], lambda ans, x, axes=None: lambda g: wrapped["ifftshift"](g, axes))
defvjp(wrapped["ifftshift"], lambda ans, x, axes=None: lambda g: wrapped["fftshift"](g, axes))

# Linear maps: the tangent goes through the same transform (exact for repeated axes too).
for _name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn",
              "irfft", "irfft2", "irfftn"):
    def_linear(wrapped[_name])
def_linear(wrapped["fftshift"])
def_linear(wrapped["ifftshift"])
del _name
