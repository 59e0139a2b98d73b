r"""`ad_core.scipy.stats.poisson`: the Poisson distribution.

The Poisson distribution with mean $\mu$, at the counts $k$ (shifted by `loc`):

$$\log p(k) = k \log\mu - \log\Gamma(k + 1) - \mu, \qquad F(k) = Q(\lfloor k\rfloor + 1, \mu),$$

the first written with `xlogy` as SciPy writes it (so $\mu = 0$ is allowed), the second
SciPy's `poisson.cdf` (which is $Q$ = `gammaincc`), whose derivative in $\mu$ is
$-p(\lfloor k \rfloor)$. Off the support (negative or
non-integer $k$) `logpmf` is $-\infty$, `pmf` 0 and `cdf` 0 below 0, with derivative 0.

Only $\mu$ is differentiable: $k$ and `loc` are integers, and differentiating with respect to
them raises `NotImplementedError` (it does not return zero).
"""

from __future__ import annotations

from typing import Any

import scipy.stats

from ... import numpy as anp
from ...core import defjvp, defvjp
from ...numpy.jvps import broadcast_to_output
from ...numpy.vjps import unbroadcast_f
from ...tracer import primitive
from .. import special

__all__ = ["cdf", "logpmf", "pmf"]


def _count_raw(k: Any) -> Any:
    return k


# The identity, without rules: a traced count fails when a derivative reaches it.
_count = primitive(_count_raw)
_count.__name__ = _count.__qualname__ = "poisson's count k (or loc), an integer"


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    k = _count(k) - _count(loc)
    inside = anp.logical_and(k >= 0, k == anp.floor(k))
    k = anp.where(inside, k, 0.0)
    mass = special.xlogy(k, mu) - special.gammaln(k + 1.0) - mu
    return anp.where(inside, mass, -anp.inf)


def pmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    return anp.exp(logpmf(k, mu, loc))


def _cdf_raw(k: Any, mu: Any, loc: Any) -> Any:
    return scipy.stats.poisson.cdf(k, mu, loc)


# A primitive rather than a composition, because its count goes through a floor (which would
# cut a traced k off silently): without rules in k and loc, differentiating in them raises.
_cdf = primitive(_cdf_raw)
_cdf.__name__ = _cdf.__qualname__ = "poisson.cdf"


def _cdf_partial_mu(ans, k, mu, loc):
    return -pmf(anp.floor(k - loc), mu)


defvjp(_cdf, lambda ans, k, mu, loc: unbroadcast_f(mu, lambda g: g * _cdf_partial_mu(ans, k, mu, loc)),
       argnums=[1])
defjvp(_cdf, lambda g, ans, k, mu, loc: broadcast_to_output(g * _cdf_partial_mu(ans, k, mu, loc), ans),
       argnums=[1])


def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    return _cdf(k, mu, loc)
