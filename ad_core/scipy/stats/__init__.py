r"""`ad_core.scipy.stats`: densities and distribution functions, traced, as in `autograd.scipy.stats`.

    >>> from ad_core.scipy.stats import norm
    >>> norm.logpdf(0.5, loc=0.0, scale=2.0)  # doctest: +ELLIPSIS
    np.float64(-1.64...)

One module per distribution, each with SciPy's signatures and defaults:

| module | functions | differentiable in |
| --- | --- | --- |
| `norm` | `pdf`, `cdf`, `logpdf`, `logcdf`, `sf`, `logsf` | `x`, `loc`, `scale` |
| `t` | `pdf`, `logpdf`, `cdf`, `logcdf` | `x`, `df`, `loc`, `scale` (the cdfs: not `df`) |
| `beta` | `pdf`, `logpdf`, `cdf` | `x`, `a`, `b`, `loc`, `scale` (`cdf`: not `a`, `b`) |
| `gamma` | `pdf`, `logpdf`, `cdf` | `x`, `a`, `loc`, `scale` (`cdf`: not `a`) |
| `chi2` | `pdf`, `logpdf`, `cdf` | `x`, `df`, `loc`, `scale` (`cdf`: not `df`) |
| `poisson` | `pmf`, `logpmf`, `cdf` | `mu` (`k` is a count) |
| `multivariate_normal` | `pdf`, `logpdf`, `entropy` | `x`, `mean`, `cov` (`allow_singular=True`: not `cov`) |
| `dirichlet` | `pdf`, `logpdf` | `x`, `alpha` |

The densities are compositions of `ad_core.numpy` and `ad_core.scipy.special` functions (the
same formulas SciPy evaluates, with `xlogy` and `xlog1py` at the edges of the support), so both
modes and every order follow from those rules. The distribution functions go through the
special functions that compute them (`ndtr`, `log_ndtr`, `stdtr`, `betainc`, `gammainc`,
`gammaincc`), whose rules exist in the argument `x` and not in the shape parameters:
differentiating a cdf in `df`, `a` or `b` raises `NotImplementedError` naming that function.
Outside the support a log density is $-\infty$ (a density 0, a cdf 0 or 1) with derivative 0.
"""

from . import beta, chi2, dirichlet, gamma, multivariate_normal, norm, poisson, t

__all__ = ["beta", "chi2", "dirichlet", "gamma", "multivariate_normal", "norm", "poisson", "t"]
