r"""`ad_core.scipy.stats.dirichlet`: the Dirichlet distribution.

The Dirichlet distribution with concentrations $\alpha$ (shape `(k,)`), at points $x$ of the
simplex: `x` of shape `(k,)` or `(k, n)` (the components along the first axis, as in SciPy),
or with $k - 1$ components, the last then being $1 - \sum_i x_i$:

$$\log p(x) = \log\Gamma\Big(\sum_i \alpha_i\Big) - \sum_i \log\Gamma(\alpha_i)
+ \sum_i (\alpha_i - 1)\log x_i,$$

differentiable in `x` (the unconstrained derivative $(\alpha_i - 1)/x_i$, as in HIPS/autograd)
and in `alpha`. SciPy checks the input first (on the simplex, positive where $\alpha_i < 1$, ...)
and raises its `ValueError` for an invalid one.

`rvs(alpha, size=1, random_state=None)` draws samples with SciPy. A sample has no derivative
with respect to `alpha` here (no reparameterisation): differentiating through it raises an
error naming `rvs`, rather than treating the draw as a constant.
"""

from __future__ import annotations

from typing import Any

import scipy.stats

from ... import numpy as anp
from ...tracer import getval, primitive
from .. import special

__all__ = ["logpdf", "pdf", "rvs"]

rvs = primitive(scipy.stats.dirichlet.rvs)


def logpdf(x: Any, alpha: Any) -> Any:
    scipy.stats.dirichlet.logpdf(getval(x), getval(alpha))  # SciPy's checks and error messages
    x_shape = anp.shape(x)
    if x_shape[0] == anp.shape(alpha)[0] - 1:
        last = anp.reshape(1.0 - anp.sum(x, axis=0), (1, *x_shape[1:]))
        x = anp.concatenate([x, last], axis=0)
    exponents = anp.reshape(alpha - 1.0, (-1,) + (1,) * (len(x_shape) - 1))
    log_normaliser = special.gammaln(anp.sum(alpha)) - anp.sum(special.gammaln(alpha))
    return anp.squeeze(log_normaliser + anp.sum(special.xlogy(exponents, x), axis=0))


def pdf(x: Any, alpha: Any) -> Any:
    return anp.exp(logpdf(x, alpha))
