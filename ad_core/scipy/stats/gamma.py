r"""`ad_core.scipy.stats.gamma`: the gamma distribution.

The gamma distribution with shape `a`, with $z = (x - \mathrm{loc}) / \mathrm{scale} \ge 0$:

$$\log p(x) = (a - 1)\log z - z - \log\Gamma(a) - \log\mathrm{scale}, \qquad F(x) = P(a, z),$$

the first written with `xlogy` as SciPy writes it, the second `gammainc(a, z)`, differentiable in
`x`, `loc` and `scale` but not in `a` (that raises, naming `gammainc`). Below the support
`logpdf` is $-\infty$, `pdf` and `cdf` 0, with derivative 0.
"""

from __future__ import annotations

from typing import Any

from ... import numpy as anp
from .. import special

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: Any, a: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    z = (x - loc) / scale
    inside = z >= 0.0
    z = anp.where(inside, z, 1.0)  # a point inside: no nan outside, in values or derivatives
    density = special.xlogy(a - 1.0, z) - z - special.gammaln(a) - anp.log(scale)
    return anp.where(inside, density, -anp.inf)


def pdf(x: Any, a: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return anp.exp(logpdf(x, a, loc, scale))


def cdf(x: Any, a: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.gammainc(a, anp.clip((x - loc) / scale, 0.0, None))
