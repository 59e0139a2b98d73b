r"""`ad_core.scipy.stats.chi2`: the chi-squared distribution.

The $\chi^2$ distribution with `df` degrees of freedom $\nu$ (not necessarily an integer),
with $z = (x - \mathrm{loc}) / \mathrm{scale} \ge 0$:

$$\log p(x) = (\tfrac{\nu}{2} - 1)\log z - \tfrac{z}{2} - \log\Gamma(\tfrac{\nu}{2})
- \tfrac{\nu}{2}\log 2 - \log\mathrm{scale}, \qquad F(x) = P(\tfrac{\nu}{2}, \tfrac{z}{2}),$$

the first written with `xlogy` as SciPy writes it, the second `gammainc(df / 2, z / 2)`,
differentiable in `x`, `loc` and `scale` but not in `df` (that raises, naming `gammainc`).
Below the support `logpdf` is $-\infty$, `pdf` and `cdf` 0, with derivative 0.
"""

from __future__ import annotations

from typing import Any

from ... import numpy as anp
from .. import special

__all__ = ["cdf", "logpdf", "pdf"]

_LOG_2 = float(anp.log(2.0))


def logpdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    z = (x - loc) / scale
    inside = z >= 0.0
    z = anp.where(inside, z, 1.0)  # a point inside: no nan outside, in values or derivatives
    half_df = df / 2.0
    density = (special.xlogy(half_df - 1.0, z) - z / 2.0 - special.gammaln(half_df)
               - half_df * _LOG_2 - anp.log(scale))
    return anp.where(inside, density, -anp.inf)


def pdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return anp.exp(logpdf(x, df, loc, scale))


def cdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.gammainc(df / 2.0, anp.clip((x - loc) / scale, 0.0, None) / 2.0)
