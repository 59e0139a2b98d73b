r"""`ad_core.scipy.integrate`: `odeint`, differentiable in reverse mode by the adjoint method.

`odeint(func, y0, t, args=(), **kwargs)` is `scipy.integrate.odeint`: it solves
$\dot{y} = f(y, t, \theta)$, $y(t_0) = y_0$, with $\theta$ = `args`, and returns
$Y_i = y(t_i)$ for every time in `t`. `func` must be written with `ad_core.numpy`, because the
backward pass differentiates it. The gradient of a loss $L(Y)$ with respect to $y_0$, to the
times $t_i$ and to $\theta$ (any nesting of tuples, lists and dicts of arrays) comes from the
adjoint system, integrated backwards from one output time to the previous one by
`scipy.integrate.odeint` itself (Froehlich, Loos and Hasenauer, ["Scalable inference of
ordinary differential equation models of biochemical processes"](https://arxiv.org/abs/1711.08079),
2017, Sec. 2.4.2, as in HIPS/autograd 1.9.1). Between output times the state
$a(t) = \partial L / \partial y(t)$ and the accumulated cotangents of $t_0$ and $\theta$ follow
$$\dot{a} = -a^\top \frac{\partial f}{\partial y},\qquad
\dot{\bar{t}}_0 = -a^\top \frac{\partial f}{\partial t},\qquad
\dot{\bar{\theta}} = -a^\top \frac{\partial f}{\partial \theta},$$
integrated together with $\dot{y} = f$ (so $y$ need not be stored between output times). At
each output time $t_i$ ($i = T-1, \dots, 1$) the output's own cotangent $\bar{Y}_i$ is added
to $a$, and moving that time moves $Y_i$ along the flow:
$$\bar{t}_i = \bar{Y}_i^\top f(Y_i, t_i, \theta), \qquad
\bar{t}_0 = -\sum_{i \ge 1} \bar{Y}_i^\top f(Y_i, t_i, \theta) + \int_{t_0}^{t_{T-1}}
a^\top \frac{\partial f}{\partial t}\, dt,\qquad
\bar{y}_0 = a(t_0) \text{ (with } \bar{Y}_0 \text{ added)}, \qquad
\bar{\theta} = \int_{t_0}^{t_{T-1}} a^\top \frac{\partial f}{\partial \theta}\, dt.$$
The keyword arguments (`rtol`, `atol`, `mxstep`, ...) are passed to the backward solves too,
so the gradient is as accurate as the solver is asked to be.

The adjoint pass is written with traced functions and `odeint` itself, so reverse mode can be
applied again (a second derivative is an adjoint pass of the adjoint pass, as in HIPS/autograd).
Forward mode is not implemented: it raises an error naming `odeint`. `full_output=True` is
refused when differentiating (its second output is a dict).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as onp
import scipy.integrate

from .. import numpy as anp
from ..containers import pack_output
from ..core import defjvp, defvjp
from ..differential_operators import make_vjp
from ..misc import flatten
from ..tracer import getval, isbox, primitive

__all__ = ["odeint"]


def _odeint_raw(func: Callable, y0: Any, t: Any, args: Any = (), **kwargs: Any) -> Any:
    return scipy.integrate.odeint(func, y0, t, args=tuple(args), **kwargs)


_odeint_raw.__name__ = _odeint_raw.__qualname__ = "odeint"
_odeint = primitive(_odeint_raw)


def odeint(func: Callable, y0: Any, t: Any, args: Any = (), **kwargs: Any) -> Any:
    """`scipy.integrate.odeint`, differentiable (reverse mode) in `y0`, `t` and `args`; see
    the module docstring. A traced value inside `args` is seen (the tuple is packed into one
    traced value), so there is no need for a special tuple type as with HIPS/autograd."""
    if not isbox(args):
        args = pack_output(tuple(args))
    if kwargs.get("full_output") and any(isbox(x) for x in (y0, t, args)):
        raise NotImplementedError("ad_core: no derivative rule for odeint with full_output=True")
    return _odeint(func, y0, t, args, **kwargs)


odeint.vjps, odeint.jvps = _odeint.vjps, _odeint.jvps
odeint.__wrapped__ = scipy.integrate.odeint


class _AdjointCache:
    """The adjoint pass gives the cotangents of `y0`, `t` and `args` together; the backward pass
    asks for them one argument at a time with the same cotangent, so the last result is kept
    (compared by identity, holding its inputs so that no identity is reused)."""

    def __init__(self) -> None:
        self.key: tuple = ()
        self.value: Any = None

    def get(self, ans: Any, g: Any, compute: Callable) -> Any:
        if len(self.key) == 2 and self.key[0] is ans and self.key[1] is g:
            return self.value
        self.value = compute()
        self.key = (ans, g)
        return self.value


_cache = _AdjointCache()


def _adjoint(ys, g, func, y0, t, args, kwargs):
    """The cotangents `(y0_bar, t_bar, args_bar)` for the output cotangent `g`.

    Written with traced functions, and with `odeint` itself for the backward solves, so that
    when `g`, `ys` or the arguments are traced (a derivative being differentiated again) the
    adjoint pass is recorded too, and its own derivative is another adjoint pass."""
    steps, size = anp.shape(ys)
    flat_args, unflatten = flatten(args)

    def flat_func(y, time, flat):
        return func(y, time, *unflatten(flat))

    def augmented_dynamics(state, time, flat):
        y, a = state[:size], state[size : 2 * size]
        with warnings.catch_warnings():
            # An f that ignores t or the parameters gives them zero cotangents: no warning.
            warnings.simplefilter("ignore", UserWarning)
            vjp, dy = make_vjp(flat_func, argnum=(0, 1, 2))(y, time, flat)
            a_dot, t_dot, args_dot = vjp(-a)
        return anp.concatenate([anp.ravel(dy), anp.ravel(a_dot), anp.ravel(t_dot), anp.ravel(args_dot)])

    a = g[-1]
    t0_bar = 0.0
    args_bar = onp.zeros(onp.size(getval(flat_args)))
    times_bar = []  # from the last output time back to the second
    for i in range(steps - 1, 0, -1):
        moved = anp.dot(anp.ravel(func(ys[i], t[i], *args)), g[i])
        times_bar.append(moved)
        t0_bar = t0_bar - moved
        state = anp.concatenate([ys[i], a, anp.reshape(t0_bar, (1,)), args_bar])
        state = odeint(augmented_dynamics, state, anp.stack([t[i], t[i - 1]]), (flat_args,), **kwargs)[1]
        a = state[size : 2 * size] + g[i - 1]
        t0_bar = state[2 * size]
        args_bar = state[2 * size + 1 :]
    times = anp.stack([t0_bar, *times_bar[::-1]])
    return anp.reshape(a, anp.shape(y0)), anp.reshape(times, anp.shape(t)), unflatten(args_bar)


def _vjp_odeint(argnum: int):
    def maker(ans, func, y0, t, args=(), **kwargs):
        def vjp(g):
            parts = _cache.get(ans, g, lambda: _adjoint(ans, g, func, y0, t, args, kwargs))
            return parts[argnum - 1]

        return vjp

    return maker


def _no_forward_mode(g, ans, *args, **kwargs):
    raise NotImplementedError(
        "ad_core: odeint has no forward-mode (JVP) rule; differentiate it in reverse mode"
    )


defvjp(_odeint, None, _vjp_odeint(1), _vjp_odeint(2), _vjp_odeint(3))
defjvp(_odeint, _no_forward_mode, _no_forward_mode, _no_forward_mode, _no_forward_mode)
