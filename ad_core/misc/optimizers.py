r"""Gradient-based stochastic optimizers: `sgd` (with momentum), `rmsprop` and `adam`.

Each has the signature of `autograd.misc.optimizers`:
`optimizer(grad, x0, callback=None, num_iters=..., step_size=..., ...)`, where
`grad(x, i)` returns the gradient at `x` on iteration `i` (the iteration number lets a
stochastic objective pick its minibatch). `x0` may be an array or any nesting of lists,
tuples and dicts of arrays; the update rules run on the flat vector from
`ad_core.misc.flatten`, and `callback(x, i, g)` and the result get the container back.

    >>> import numpy as np
    >>> from ad_core import grad
    >>> from ad_core.misc.optimizers import adam
    >>> loss = lambda params, i: (params["w"] - 3.0) ** 2 + (params["b"] + 1.0) ** 2
    >>> trained = adam(grad(loss), {"w": 0.0, "b": 0.0}, step_size=0.1, num_iters=300)
    >>> print(np.round(trained["w"], 3), np.round(trained["b"], 3))
    3.0 -1.0

The optimizers call no derivative themselves and are written with `ad_core.numpy`, so they
can be traced too (a gradient through a whole optimization run, for meta-optimization).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import numpy as anp
from .flatten import flatten

Gradient = Callable[[Any, int], Any]
Callback = Callable[[Any, int, Any], Any]


def unflatten_optimizer(optimize: Callable[..., Any]) -> Callable[..., Any]:
    """Turn an optimizer of flat 1-D vectors into one of nested containers of arrays.

    The wrapped optimizer flattens `x0`, hands `optimize` a gradient that flattens what
    `grad(container, i)` returns, gives `callback` containers rather than vectors, and
    unflattens the result.
    """

    @functools.wraps(optimize)
    def optimize_container(grad: Gradient, x0: Any, callback: Callback | None = None, *args, **kwargs):
        flat_x0, unflatten = flatten(x0)

        def flat_grad(x: Any, i: int) -> Any:
            return flatten(grad(unflatten(x), i))[0]

        flat_callback = None
        if callback:

            def flat_callback(x: Any, i: int, g: Any) -> None:
                callback(unflatten(x), i, unflatten(g))

        return unflatten(optimize(flat_grad, flat_x0, flat_callback, *args, **kwargs))

    return optimize_container


@unflatten_optimizer
def sgd(
    grad: Gradient,
    x: Any,
    callback: Callback | None = None,
    num_iters: int = 200,
    step_size: float = 0.1,
    mass: float = 0.9,
) -> Any:
    r"""Stochastic gradient descent with momentum.

    With $g_i = \nabla f(x_i)$, $v_0 = 0$, step size $\eta$ and mass $\mu$, each iteration does

    $$v_{i+1} = \mu v_i - (1 - \mu)\, g_i, \qquad x_{i+1} = x_i + \eta\, v_{i+1}.$$

    The velocity is an exponential moving average of the negative gradients: under a gradient
    $g$ that stays the same, $v_i = -(1 - \mu^i)\, g$, so the step $\eta v_i$ grows towards
    $-\eta g$ and never passes it.
    """
    velocity = anp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@unflatten_optimizer
def rmsprop(
    grad: Gradient,
    x: Any,
    callback: Callback | None = None,
    num_iters: int = 100,
    step_size: float = 0.1,
    gamma: float = 0.9,
    eps: float = 10**-8,
) -> Any:
    r"""Root-mean-square propagation: each coordinate's step is divided by a running RMS of
    its gradients.

    With $s_0 = 1$ (ones, as in autograd, so the first steps are not huge) and elementwise
    operations,

    $$s_{i+1} = \gamma s_i + (1 - \gamma)\, g_i^2, \qquad
    x_{i+1} = x_i - \eta\, \frac{g_i}{\sqrt{s_{i+1}} + \epsilon}.$$
    """
    avg_sq_grad = anp.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1 - gamma)
        x = x - step_size * g / (anp.sqrt(avg_sq_grad) + eps)
    return x


@unflatten_optimizer
def adam(
    grad: Gradient,
    x: Any,
    callback: Callback | None = None,
    num_iters: int = 100,
    step_size: float = 0.001,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 10**-8,
) -> Any:
    r"""Adam (Kingma and Ba, arXiv:1412.6980): RMSprop with momentum and bias correction.

    With $m_0 = v_0 = 0$ and elementwise operations, iteration $i = 0, 1, \ldots$ does

    $$m_{i+1} = \beta_1 m_i + (1 - \beta_1)\, g_i, \qquad v_{i+1} = \beta_2 v_i + (1 - \beta_2)\, g_i^2,$$

    $$\hat m = \frac{m_{i+1}}{1 - \beta_1^{\,i+1}}, \qquad \hat v = \frac{v_{i+1}}{1 - \beta_2^{\,i+1}},
    \qquad x_{i+1} = x_i - \eta\, \frac{\hat m}{\sqrt{\hat v} + \epsilon}.$$

    The corrections undo the pull of the zero initial moments towards zero in early iterations.
    """
    m = anp.zeros(len(x))
    v = anp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        m = (1 - b1) * g + b1 * m  # first moment estimate
        v = (1 - b2) * (g**2) + b2 * v  # second moment estimate
        mhat = m / (1 - b1 ** (i + 1))  # bias corrections
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size * mhat / (anp.sqrt(vhat) + eps)
    return x
