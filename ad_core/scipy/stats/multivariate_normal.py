r"""`ad_core.scipy.stats.multivariate_normal`: the multivariate normal distribution.

The multivariate normal distribution $\mathcal{N}(\mu, \Sigma)$ in $k$ dimensions, with
$d = x - \mu$:

$$\log p(x) = -\tfrac{1}{2}\big(k \log 2\pi + \log\det\Sigma + d^\top \Sigma^{-1} d\big), \qquad
H = \tfrac{1}{2}\big(k (1 + \log 2\pi) + \log\det\Sigma\big),$$

written with `solve` and `slogdet`, so the derivatives follow from theirs:
$\partial_x \log p = -\Sigma^{-1} d$, $\partial_\Sigma \log p =
\tfrac{1}{2}(\Sigma^{-1} d d^\top \Sigma^{-1} - \Sigma^{-1})$ for a symmetric $\Sigma$. Arguments
as in SciPy: `mean` None (zeros) or of size $k$; `cov` a matrix, a vector (its diagonal) or a
scalar (times the identity); `x` a point or points along its last axis (for $k = 1$, a vector
of points); the output squeezed as SciPy squeezes it. A covariance that is not positive
definite is refused with a `ValueError`.

With `allow_singular=True`, SciPy computes the value (pseudo-inverse, pseudo-determinant) and
$\partial_x \log p = -\Sigma^{+} d$ (likewise $\mu$); there is no rule in `cov` there (the
pseudo-determinant is not differentiable where the rank changes), so differentiating in `cov`
raises `NotImplementedError`.
"""

from __future__ import annotations

from typing import Any

import numpy as onp
import scipy.stats

from ... import numpy as anp
from ...core import defjvp, defvjp
from ...tracer import getval, primitive

__all__ = ["entropy", "logpdf", "pdf"]

_LOG_2PI = float(onp.log(2.0 * onp.pi))


def _process_parameters(mean: Any, cov: Any) -> tuple[int, Any, Any]:
    """`(k, mean of shape (k,), cov of shape (k, k))`, as SciPy reads them."""
    cov_ndim = anp.ndim(cov)
    if mean is None:
        dim = 1 if cov_ndim == 0 else anp.shape(cov)[0]
        mean = onp.zeros(dim)
    else:
        dim = int(anp.size(mean))
        mean = anp.reshape(mean, (dim,))
    if cov_ndim == 0:
        cov = cov * onp.eye(dim)
    elif cov_ndim == 1:
        cov = anp.diag(cov)
    return dim, mean, cov


def _points(x: Any, dim: int) -> tuple[Any, tuple]:
    """The points as rows of a `(n, k)` matrix, and the shape of the output before squeezing."""
    x_ndim = anp.ndim(x)
    if x_ndim == 0 or (x_ndim == 1 and dim == 1):
        batch_shape = anp.shape(x)
    elif x_ndim == 1:
        batch_shape = ()
    else:
        batch_shape = anp.shape(x)[:-1]
    return anp.reshape(x, (-1, dim)), batch_shape


def _check_positive_definite(cov: Any) -> None:
    try:
        onp.linalg.cholesky(getval(cov))
    except onp.linalg.LinAlgError:
        raise ValueError(
            "multivariate_normal: the covariance is not positive definite; pass "
            "allow_singular=True for a singular (positive semi-definite) one"
        ) from None


# ---------------------------------------------------------------------------------------------
# allow_singular=True: SciPy's value, rules in x and mean through the pseudo-inverse
# ---------------------------------------------------------------------------------------------


def _singular_logpdf_raw(rows, mean, cov):
    values = scipy.stats.multivariate_normal.logpdf(rows, mean, cov, allow_singular=True)
    return onp.reshape(values, (onp.shape(rows)[0],))


_singular_logpdf = primitive(_singular_logpdf_raw)
_singular_logpdf.__name__ = _singular_logpdf.__qualname__ = "multivariate_normal.logpdf(allow_singular=True)"

# The pseudo-inverse of a singular covariance, without rules: a derivative in cov raises.
_singular_precision = primitive(lambda cov: onp.linalg.pinv(cov, hermitian=True))
_singular_precision.__name__ = _singular_precision.__qualname__ = (
    "the pseudo-inverse in multivariate_normal.logpdf(allow_singular=True)"
)


def _precision_times_residuals(rows, mean, cov):
    """$\\Sigma^{+} d$ for each row $d$ of `rows - mean`, as rows."""
    return anp.matmul(rows - mean, _singular_precision(cov))


defvjp(_singular_logpdf,
       lambda ans, rows, mean, cov: lambda g: -anp.expand_dims(g, -1) * _precision_times_residuals(
           rows, mean, cov),
       lambda ans, rows, mean, cov: lambda g: anp.sum(
           anp.expand_dims(g, -1) * _precision_times_residuals(rows, mean, cov), axis=0))
defjvp(_singular_logpdf,
       lambda g, ans, rows, mean, cov: -anp.sum(g * _precision_times_residuals(rows, mean, cov), axis=-1),
       lambda g, ans, rows, mean, cov: anp.sum(g * _precision_times_residuals(rows, mean, cov), axis=-1))

# ---------------------------------------------------------------------------------------------
# The distribution
# ---------------------------------------------------------------------------------------------


def logpdf(x: Any, mean: Any = None, cov: Any = 1, allow_singular: bool = False) -> Any:
    dim, mean, cov = _process_parameters(mean, cov)
    rows, batch_shape = _points(x, dim)
    if allow_singular:
        values = _singular_logpdf(rows, mean, cov)
    else:
        _check_positive_definite(cov)
        residuals = rows - mean
        solved = anp.linalg.solve(cov, anp.transpose(residuals))  # (k, n)
        quadratic = anp.sum(residuals * anp.transpose(solved), axis=-1)
        log_det = anp.linalg.slogdet(cov)[1]
        values = -0.5 * (dim * _LOG_2PI + log_det + quadratic)
    return anp.squeeze(anp.reshape(values, batch_shape))


def pdf(x: Any, mean: Any = None, cov: Any = 1, allow_singular: bool = False) -> Any:
    return anp.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean: Any = None, cov: Any = 1) -> Any:
    """$H$ depends on `cov` only; `mean` sets the dimension when `cov` is a scalar."""
    dim, _, cov = _process_parameters(mean, cov)
    _check_positive_definite(cov)
    return 0.5 * (dim * (1.0 + _LOG_2PI) + anp.linalg.slogdet(cov)[1])
