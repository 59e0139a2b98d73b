r"""`ad_core.scipy.stats.norm`: the normal distribution.

The normal distribution $\mathcal{N}(\mathrm{loc}, \mathrm{scale}^2)$, with
$z = (x - \mathrm{loc}) / \mathrm{scale}$:

$$\log p(x) = -\tfrac{1}{2} z^2 - \log \mathrm{scale} - \tfrac{1}{2}\log 2\pi, \qquad
F(x) = \Phi(z), \qquad 1 - F(x) = \Phi(-z),$$

with $\Phi$ = `ndtr` and $\log\Phi$ = `log_ndtr` (accurate far in the tails, where
$\log(1 - \Phi)$ would round to $\log 0$). Every function is differentiable in `x`, `loc` and
`scale`, in both modes and to any order.
"""

from __future__ import annotations

from typing import Any

from ... import numpy as anp
from .. import special

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_SQRT_2PI = 0.5 * float(anp.log(2.0 * anp.pi))


def _standardize(x: Any, loc: Any, scale: Any) -> Any:
    return (x - loc) / scale


def logpdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    z = _standardize(x, loc, scale)
    return -0.5 * z**2 - anp.log(scale) - _LOG_SQRT_2PI


def pdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return anp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.ndtr(_standardize(x, loc, scale))


def logcdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.log_ndtr(_standardize(x, loc, scale))


def sf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.ndtr(-_standardize(x, loc, scale))


def logsf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.log_ndtr(-_standardize(x, loc, scale))
