r"""`ad_core.scipy.special`: SciPy's special functions, traced, with rules in both modes.

Every function here is SciPy's own for the value; each differentiable argument has a VJP and a
JVP rule, written with traced functions so that its derivative can be differentiated again.
Broadcasting functions of several arguments give each argument a cotangent of its own shape.
With $\psi = \Gamma'/\Gamma$ and $\psi^{(n)}$ its derivatives:

| function | derivative |
| --- | --- |
| `gamma`, `gammaln`, `rgamma` | $\Gamma \psi$, $\psi$ (of $\log\lvert\Gamma\rvert$), $-\psi / \Gamma$ |
| `psi`, `digamma`, `polygamma(n, x)` | $\partial_x \psi^{(n)}(x) = \psi^{(n+1)}(x)$ |
| `multigammaln(a, d)` | $\partial_a \log\Gamma_d(a) = \sum_{j<d} \psi(a - j/2)$ |
| `gammasgn` | 0 (locally constant) |
| `beta(a, b)`, `betaln(a, b)` | $\partial_a B = B\,(\psi(a) - \psi(a+b))$, $\partial_a \log B$ without $B$ |
| `betainc(a, b, x)` | $\partial_x I_x(a, b) = x^{a-1}(1-x)^{b-1}/B(a, b)$ |
| `gammainc(a, x)`, `gammaincc(a, x)` | $\pm\partial_x P(a, x) = \pm e^{-x} x^{a-1}/\Gamma(a)$ |
| `j0`, `y0`, `j1`, `y1` | $J_0' = -J_1$, $Y_0' = -Y_1$, $C_1' = (C_0 - C_2)/2$ for $C = J, Y$ |
| `jn(n, x)`, `yn(n, x)`, `iv(v, x)` | $C_n' = (C_{n-1} - C_{n+1})/2$; $I_v' = (I_{v-1} + I_{v+1})/2$ |
| `i0`, `i1` | $I_0' = I_1$, $I_1' = (I_0 + I_2)/2$ |
| `ive(v, x)` $= E_v = I_v e^{-\lvert x\rvert}$ | $(E_{v-1} + E_{v+1})/2 - \operatorname{sign}(x) E_v$ |
| `erf`, `erfc` | $\pm \frac{2}{\sqrt\pi} e^{-x^2}$ |
| `erfinv`, `erfcinv` | $\pm \frac{\sqrt\pi}{2} e^{y^2}$ with $y$ the output |
| `logit`, `expit` | $\frac{1}{x(1-x)}$, $y(1-y)$ |
| `ndtr`, `log_ndtr` | $\varphi(x) = e^{-x^2/2}/\sqrt{2\pi}$, $e^{\log\varphi(x) - \log\Phi(x)}$ |
| `stdtr(df, t)` | $\partial_t$: the Student-t density |
| `xlogy(x, y)`, `xlog1py(x, y)` | $(\log y,\ x/y)$, $(\log(1+y),\ x/(1+y))$ |

`logsumexp(a, axis, b, keepdims, return_sign)` has the weights $w = b\, e^{a - \mathrm{lse}}$
(times the sign of the sum) as gradient with respect to $a$ (a softmax when $b$ is absent) and
$e^{a - \mathrm{lse}}$ with respect to $b$; both are formed from the output, so large inputs
(1000.0, where $e^a$ overflows) are safe.

No rule exists for an order or for a parameter whose derivative has no closed form: the
orders `n` of `jn`, `yn`, `polygamma`, `v` of `iv`, `ive`, the dimension `d` of `multigammaln`,
`a` and `b` of `betainc`, `a` of `gammainc` and `gammaincc`, `df` of `stdtr`. These functions
compute their values; differentiating with respect to such an argument raises
`NotImplementedError` naming the function and the argument, rather than returning zero.
(`ndtr`, `log_ndtr`, `stdtr`, `xlogy` and `xlog1py` are not in HIPS/autograd; `ad_core.scipy.stats`
is written with them.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as onp
import scipy.special

from .. import numpy as anp
from ..core import defjvp, defvjp
from ..numpy.jvps import broadcast_to_output
from ..numpy.vjps import reduction_layout, unbroadcast, unbroadcast_f
from ..tracer import getval, isbox, primitive

__all__ = [
    "beta", "betainc", "betaln", "digamma", "erf", "erfc", "erfcinv", "erfinv", "expit",
    "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "i0", "i1", "iv", "ive", "j0", "j1",
    "jn", "log_ndtr", "logit", "logsumexp", "multigammaln", "ndtr", "polygamma", "psi", "rgamma",
    "stdtr", "xlog1py", "xlogy", "y0", "y1", "yn",
]

_SQRT_PI = float(onp.sqrt(onp.pi))
_LOG_SQRT_2PI = float(0.5 * onp.log(2.0 * onp.pi))


def _traced(name: str, raw: Callable | None = None) -> Callable:
    """`scipy.special.<name>` as a primitive that carries the public name (SciPy's ufuncs have
    their own: `jn` is `jv`, `digamma` is `psi`), so that errors name what the user called."""
    raw = getattr(scipy.special, name) if raw is None else raw
    traced = primitive(raw)
    traced.__name__ = traced.__qualname__ = name
    traced.__doc__ = f"`scipy.special.{name}`, traced (see `ad_core.scipy.special`).\n\n{raw.__doc__ or ''}"
    return traced


def _register(fun: Callable, derivatives: dict[int, Callable | None]) -> None:
    """Rules for an elementwise (broadcasting) function from its partial derivatives.

    `derivatives[i](ans, *args)` is $\\partial f / \\partial \\mathrm{args}_i$, evaluated with
    traced functions; `None` means the output does not depend on that argument. An argument
    missing from the dict gets no rule: differentiating with respect to it raises.
    """
    for argnum, partial in derivatives.items():
        if partial is None:
            defvjp(fun, None, argnums=[argnum])
            defjvp(fun, None, argnums=[argnum])
            continue

        def vjp_maker(ans, *args, _i=argnum, _d=partial, **kwargs):
            return unbroadcast_f(args[_i], lambda g: g * _d(ans, *args))

        def jvp(g, ans, *args, _d=partial, **kwargs):
            return broadcast_to_output(g * _d(ans, *args), ans)

        defvjp(fun, vjp_maker, argnums=[argnum])
        defjvp(fun, jvp, argnums=[argnum])


# =============================================================================================
# Gamma and related functions
# =============================================================================================

gamma = _traced("gamma")
gammaln = _traced("gammaln")
rgamma = _traced("rgamma")
gammasgn = _traced("gammasgn")
psi = _traced("psi")
digamma = _traced("digamma")
polygamma = _traced("polygamma")
multigammaln = _traced("multigammaln")
gammainc = _traced("gammainc")
gammaincc = _traced("gammaincc")

_register(gamma, {0: lambda ans, x: ans * psi(x)})
_register(gammaln, {0: lambda ans, x: psi(x)})
_register(rgamma, {0: lambda ans, x: -ans * psi(x)})
_register(gammasgn, {0: None})
_register(psi, {0: lambda ans, x: polygamma(1, x)})
_register(digamma, {0: lambda ans, x: polygamma(1, x)})
_register(polygamma, {1: lambda ans, n, x: polygamma(n + 1, x)})


def _multigammaln_partial(ans, a, d):
    r"""$\log\Gamma_d(a) = \frac{d(d-1)}{4}\log\pi + \sum_{j<d} \log\Gamma(a - j/2)$."""
    return anp.sum(digamma(anp.expand_dims(a, -1) - onp.arange(d) / 2.0), axis=-1)


_register(multigammaln, {0: _multigammaln_partial})


def _incomplete_gamma_density(a, x):
    r"""$e^{-x} x^{a-1} / \Gamma(a)$, in logarithms (no overflow of $\Gamma(a)$ or $x^{a-1}$)."""
    return anp.exp(xlogy(a - 1.0, x) - x - gammaln(a))


_register(gammainc, {1: lambda ans, a, x: _incomplete_gamma_density(a, x)})
_register(gammaincc, {1: lambda ans, a, x: -_incomplete_gamma_density(a, x)})

# =============================================================================================
# Beta functions
# =============================================================================================

beta = _traced("beta")
betaln = _traced("betaln")
betainc = _traced("betainc")

_register(beta, {0: lambda ans, a, b: ans * (psi(a) - psi(a + b)),
                 1: lambda ans, a, b: ans * (psi(b) - psi(a + b))})
_register(betaln, {0: lambda ans, a, b: psi(a) - psi(a + b),
                   1: lambda ans, a, b: psi(b) - psi(a + b)})
_register(betainc, {2: lambda ans, a, b, x: anp.exp(
    xlogy(a - 1.0, x) + xlog1py(b - 1.0, -x) - betaln(a, b))})

# =============================================================================================
# Bessel functions
# =============================================================================================

j0 = _traced("j0")
y0 = _traced("y0")
j1 = _traced("j1")
y1 = _traced("y1")
jn = _traced("jn")
yn = _traced("yn")
i0 = _traced("i0")
i1 = _traced("i1")
iv = _traced("iv")
ive = _traced("ive")

_register(j0, {0: lambda ans, x: -j1(x)})
_register(y0, {0: lambda ans, x: -y1(x)})
_register(j1, {0: lambda ans, x: (j0(x) - jn(2, x)) / 2.0})
_register(y1, {0: lambda ans, x: (y0(x) - yn(2, x)) / 2.0})
_register(jn, {1: lambda ans, n, x: (jn(n - 1, x) - jn(n + 1, x)) / 2.0})
_register(yn, {1: lambda ans, n, x: (yn(n - 1, x) - yn(n + 1, x)) / 2.0})
_register(i0, {0: lambda ans, x: i1(x)})
_register(i1, {0: lambda ans, x: (i0(x) + iv(2, x)) / 2.0})
_register(iv, {1: lambda ans, v, x: (iv(v - 1, x) + iv(v + 1, x)) / 2.0})
_register(ive, {1: lambda ans, v, x: (ive(v - 1, x) + ive(v + 1, x)) / 2.0 - anp.sign(x) * ans})

# =============================================================================================
# Error functions, the normal and Student-t distribution functions
# =============================================================================================

erf = _traced("erf")
erfc = _traced("erfc")
erfinv = _traced("erfinv")
erfcinv = _traced("erfcinv")
ndtr = _traced("ndtr")
log_ndtr = _traced("log_ndtr")
stdtr = _traced("stdtr")


def _log_normal_density(x):
    return -0.5 * x**2 - _LOG_SQRT_2PI


_register(erf, {0: lambda ans, x: (2.0 / _SQRT_PI) * anp.exp(-x**2)})
_register(erfc, {0: lambda ans, x: (-2.0 / _SQRT_PI) * anp.exp(-x**2)})
_register(erfinv, {0: lambda ans, x: (_SQRT_PI / 2.0) * anp.exp(ans**2)})
_register(erfcinv, {0: lambda ans, x: (-_SQRT_PI / 2.0) * anp.exp(ans**2)})
_register(ndtr, {0: lambda ans, x: anp.exp(_log_normal_density(x))})
# The ratio phi / Phi in logarithms: Phi underflows far in the left tail, the ratio does not.
_register(log_ndtr, {0: lambda ans, x: anp.exp(_log_normal_density(x) - ans)})


def _student_t_log_density(t, df):
    return (gammaln((df + 1.0) / 2.0) - gammaln(df / 2.0) - 0.5 * anp.log(df * onp.pi)
            - (df + 1.0) / 2.0 * anp.log1p(t**2 / df))


_register(stdtr, {1: lambda ans, df, t: anp.exp(_student_t_log_density(t, df))})

# =============================================================================================
# Logit, expit, xlogy, xlog1py
# =============================================================================================

logit = _traced("logit")
expit = _traced("expit")
xlogy = _traced("xlogy")
xlog1py = _traced("xlog1py")

_register(logit, {0: lambda ans, x: 1.0 / (x * (1.0 - x))})
_register(expit, {0: lambda ans, x: ans * (1.0 - ans)})
_register(xlogy, {0: lambda ans, x, y: anp.log(y), 1: lambda ans, x, y: x / y})
_register(xlog1py, {0: lambda ans, x, y: anp.log1p(y), 1: lambda ans, x, y: x / (1.0 + y)})

# =============================================================================================
# logsumexp
# =============================================================================================


def _logsumexp_raw(a, b, axis, keepdims, signed):
    """SciPy's logsumexp with positional arguments (so the tracer sees a traced `b`);
    `signed`: $\\log\\lvert\\sum b e^a\\rvert$, whose sign the caller returns separately."""
    if signed:
        return scipy.special.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)[0]
    return scipy.special.logsumexp(a, axis=axis, b=b, keepdims=keepdims)


_logsumexp = _traced("logsumexp", _logsumexp_raw)


def _normalised_weights(ans, a, b, axis, keepdims):
    r"""$\operatorname{sign}(s)\, e^{a - \log\lvert s\rvert}$ for $s = \sum b\, e^a$, on the full
    broadcast shape of `a` and `b`; the output is restored to that shape with size-1 reduced
    axes first, so $a - \mathrm{lse} \le$ (about) 0 never overflows. Also returns the shape
    with the reduced axes kept, to which a cotangent of the output is reshaped."""
    full_shape = anp.shape(a) if b is None else onp.broadcast_shapes(anp.shape(a), anp.shape(b))
    kept_shape, _ = reduction_layout(full_shape, axis)
    ans_kept = ans if keepdims else anp.reshape(ans, kept_shape)
    weights = anp.exp(a - ans_kept)
    if b is not None:  # the sum may be negative: its sign is locally constant
        _, sign = scipy.special.logsumexp(getval(a), axis=axis, b=getval(b), keepdims=True,
                                          return_sign=True)
        weights = weights * sign
    return anp.broadcast_to(weights, full_shape), kept_shape


def _logsumexp_vjp_a(ans, a, b, axis, keepdims, signed):
    weights, kept_shape = _normalised_weights(ans, a, b, axis, keepdims)
    if b is not None:
        weights = weights * b
    return unbroadcast_f(a, lambda g: anp.reshape(g, kept_shape) * weights)


def _logsumexp_vjp_b(ans, a, b, axis, keepdims, signed):
    weights, kept_shape = _normalised_weights(ans, a, b, axis, keepdims)
    b_meta = anp.metadata(b)
    return lambda g: unbroadcast(anp.reshape(g, kept_shape) * weights, b_meta)


def _logsumexp_jvp_a(g, ans, a, b, axis, keepdims, signed):
    weights, _ = _normalised_weights(ans, a, b, axis, keepdims)
    if b is not None:
        weights = weights * b
    return anp.sum(g * weights, axis=axis, keepdims=keepdims)


def _logsumexp_jvp_b(g, ans, a, b, axis, keepdims, signed):
    weights, _ = _normalised_weights(ans, a, b, axis, keepdims)
    return anp.sum(g * weights, axis=axis, keepdims=keepdims)


defvjp(_logsumexp, _logsumexp_vjp_a, _logsumexp_vjp_b)
defjvp(_logsumexp, _logsumexp_jvp_a, _logsumexp_jvp_b)


def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
              return_sign: bool = False) -> Any:
    r"""$\log \sum_i b_i e^{a_i}$ over `axis` (None: all axes; an int or a tuple), as
    `scipy.special.logsumexp`, differentiable in `a` and in the weights `b`.

    With `return_sign`, returns `(log|s|, sign(s))`; the sign carries no derivative.
    """
    if isinstance(axis, list):
        axis = tuple(axis)
    if b is not None and not isbox(b):
        b = onp.asarray(b)
    if not isbox(a) and not isinstance(a, onp.ndarray | float | int):
        a = onp.asarray(a)
    value = _logsumexp(a, b, axis, keepdims, return_sign)
    if not return_sign:
        return value
    _, sign = scipy.special.logsumexp(getval(a), axis=axis, b=None if b is None else getval(b),
                                      keepdims=keepdims, return_sign=True)
    return value, sign
