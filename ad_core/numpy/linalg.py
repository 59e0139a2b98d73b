"""`ad_core.numpy.linalg`: NumPy's linear algebra, traced, with rules for the common functions."""

from __future__ import annotations

from typing import Any

import numpy as onp

from ..core import defjvp, defvjp
from . import wrapper as anp
from .wrapper import wrap_namespace

wrapped: dict[str, Any] = {}
wrap_namespace(onp.linalg.__dict__, wrapped)
globals().update(wrapped)
__all__ = sorted(wrapped)


def _matrix_transpose(x: Any) -> Any:
    return anp.swapaxes(x, -1, -2)


def grad_inv(ans, x):
    r"""$d(X^{-1}) = -X^{-1}\, dX\, X^{-1}$, so the cotangent is $-X^{-\top} \bar{Y} X^{-\top}$."""
    return lambda g: -anp.matmul(anp.matmul(_matrix_transpose(ans), g), _matrix_transpose(ans))


def grad_det(ans, x):
    r"""$\partial \det X / \partial X = \det X \cdot X^{-\top}$."""
    return lambda g: anp.expand_dims(anp.expand_dims(g * ans, -1), -1) * _matrix_transpose(
        wrapped["inv"](x)
    )


def grad_solve_a(ans, a, b):
    """For `x = solve(a, b)`: the cotangent of `a` is `-solve(a.T, g) x.T`."""
    def vjp(g):
        updated = wrapped["solve"](_matrix_transpose(a), g)
        if anp.ndim(ans) == anp.ndim(a) - 1:
            return -anp.expand_dims(updated, -1) * anp.expand_dims(ans, -2)
        return -anp.matmul(updated, _matrix_transpose(ans))

    return vjp


defvjp(wrapped["inv"], grad_inv)
defvjp(wrapped["det"], grad_det)
defvjp(wrapped["solve"], grad_solve_a,
       lambda ans, a, b: lambda g: wrapped["solve"](_matrix_transpose(a), g))
defjvp(wrapped["inv"], lambda g, ans, x: -anp.matmul(anp.matmul(ans, g), ans))
defjvp(wrapped["det"], lambda g, ans, x: ans * anp.sum(
    _matrix_transpose(wrapped["inv"](x)) * g, axis=(-2, -1)))
defjvp(wrapped["solve"],
       lambda g, ans, a, b: -wrapped["solve"](a, anp.matmul(g, ans) if anp.ndim(ans) == anp.ndim(a)
                                              else anp.matmul(g, ans[..., None])[..., 0]),
       lambda g, ans, a, b: wrapped["solve"](a, g))
