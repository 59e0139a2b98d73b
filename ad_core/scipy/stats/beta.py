r"""`ad_core.scipy.stats.beta`: the beta distribution.

The beta distribution on $[\mathrm{loc}, \mathrm{loc} + \mathrm{scale}]$, with
$z = (x - \mathrm{loc}) / \mathrm{scale}$ and $0 \le z \le 1$:

$$\log p(x) = (a - 1)\log z + (b - 1)\log(1 - z) - \log B(a, b) - \log\mathrm{scale},$$

written with `xlogy` and `xlog1py` as SciPy writes it (finite at $z = 0$ for $a = 1$, ...), and
$F(x) = I_z(a, b)$ = `betainc(a, b, z)`, differentiable in `x`, `loc` and `scale` but not in `a`
or `b` (that raises, naming `betainc`). Outside the support `logpdf` is $-\infty$, `pdf` 0 and
`cdf` 0 or 1, with derivative 0.
"""

from __future__ import annotations

from typing import Any

from ... import numpy as anp
from .. import special

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    z = (x - loc) / scale
    inside = anp.logical_and(z >= 0.0, z <= 1.0)
    z = anp.where(inside, z, 0.5)  # a point inside: no nan outside, in values or derivatives
    density = (special.xlogy(a - 1.0, z) + special.xlog1py(b - 1.0, -z) - special.betaln(a, b)
               - anp.log(scale))
    return anp.where(inside, density, -anp.inf)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return anp.exp(logpdf(x, a, b, loc, scale))


def cdf(x: Any, a: Any, b: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.betainc(a, b, anp.clip((x - loc) / scale, 0.0, 1.0))
