r"""`ad_core.scipy.stats.t`: Student's t distribution.

Student's t distribution with `df` degrees of freedom, with $z = (x - \mathrm{loc}) / \mathrm{scale}$:

$$\log p(x) = \log\Gamma\big(\tfrac{\nu+1}{2}\big) - \log\Gamma\big(\tfrac{\nu}{2}\big)
- \tfrac{1}{2}\log(\nu\pi) - \log\mathrm{scale} - \tfrac{\nu+1}{2}\log\big(1 + z^2/\nu\big),$$

$F(x)$ = `stdtr(df, z)`, whose derivative in $z$ is the standard density; it has no rule in
`df` (differentiating `cdf` or `logcdf` in `df` raises, naming `stdtr`). `logcdf` is
$\log F$, as SciPy computes it.
"""

from __future__ import annotations

from typing import Any

from ... import numpy as anp
from .. import special

__all__ = ["cdf", "logcdf", "logpdf", "pdf"]


def logpdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    z = (x - loc) / scale
    return (special.gammaln((df + 1.0) / 2.0) - special.gammaln(df / 2.0)
            - 0.5 * anp.log(df * anp.pi) - anp.log(scale)
            - (df + 1.0) / 2.0 * anp.log1p(z**2 / df))


def pdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return anp.exp(logpdf(x, df, loc, scale))


def cdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return special.stdtr(df, (x - loc) / scale)


def logcdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    return anp.log(cdf(x, df, loc, scale))
