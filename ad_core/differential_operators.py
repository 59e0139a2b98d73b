"""Layer 3, differential operators: `grad`, `jacobian`, `hessian` and friends.

Each operator takes a function of several arguments and differentiates it with respect to
one of them (`argnum`), by tracing a one-argument function with `make_vjp` or `make_jvp`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .core import make_jvp as _make_jvp
from .core import make_vjp as _make_vjp
from .core import vspace
from .tracer import getval


def _unary(fun: Callable, args: tuple, argnum: int | tuple[int, ...], operator: str) -> tuple[Callable, Any]:
    """Fix every argument but `args[argnum]`; check `argnum` and the argument's dtype.

    A tuple `argnum` differentiates with respect to a tuple of arguments at once, and the
    result is a tuple with one entry per argument.
    """
    argnums = argnum if isinstance(argnum, tuple) else (argnum,)
    for index in argnums:
        if not isinstance(index, int):
            raise TypeError(f"ad_core.{operator}: argnum must be an int or a tuple of ints, got {argnum!r}")
        if not -len(args) <= index < len(args):
            raise ValueError(
                f"ad_core.{operator}: argnum={index} is out of range for a call with "
                f"{len(args)} positional argument(s)"
            )
    argnums = tuple(index % len(args) for index in argnums)
    for index in argnums:
        _check_float(args[index], f"ad_core.{operator}: argument {index}")

    if not isinstance(argnum, tuple):
        (index,) = argnums

        def unary_fun(x):
            return fun(*args[:index], x, *args[index + 1 :])

        return unary_fun, args[index]

    def tuple_fun(xs):
        full = list(args)
        for index, x in zip(argnums, xs, strict=True):
            full[index] = x
        return fun(*full)

    return tuple_fun, tuple(args[index] for index in argnums)


def _check_float(x: Any, where: str) -> None:
    """Only floats and complex numbers (or containers of them) can be differentiated."""
    x = getval(x)
    if isinstance(x, list | tuple):
        for item in x:
            _check_float(item, where)
    elif isinstance(x, dict):
        for item in x.values():
            _check_float(item, where)
    elif type(x) is not float and getattr(x, "dtype", np.result_type(x)).kind not in "fc":
        try:
            vspace(x)
        except TypeError as error:
            raise TypeError(f"{where}: {error}") from None
        raise TypeError(f"{where}: cannot differentiate a value of type {type(x).__name__}")


def _operator(name: str):
    """Give an operator `(fun, argnum=0)` the autograd calling convention."""

    def decorate(build):
        @functools.wraps(build)
        def operator(fun: Callable, argnum: int = 0, *extra, **extra_kwargs) -> Callable:
            @functools.wraps(fun)
            def differentiated(*args, **kwargs):
                unary_fun, x = _unary(
                    lambda *a: fun(*a, **kwargs), args, argnum, name
                )
                return build(unary_fun, x, *extra, **extra_kwargs)

            return differentiated

        return operator

    return decorate


def _check_scalar_output(value: Any, operator: str) -> None:
    if np.ndim(value) != 0:
        raise TypeError(
            f"ad_core.{operator}: the function returned an array of shape {np.shape(value)}, "
            "but grad needs a scalar output; use ad_core.jacobian for the full derivative or "
            "ad_core.elementwise_grad for the gradient of the sum of the outputs"
        )
    if np.iscomplexobj(value):
        raise TypeError(
            f"ad_core.{operator}: the function returned a complex scalar; grad needs a real "
            "output (use holomorphic_grad for holomorphic functions)"
        )


@_operator("grad")
def grad(fun: Callable, x: Any) -> Any:
    r"""The gradient of a scalar function: $\nabla f(x) = J_f(x)^\top \cdot 1$.

    `grad(f, argnum=0)(*args)` returns an array of the shape of `args[argnum]`.
    """
    vjp, ans = _make_vjp(fun, x)
    _check_scalar_output(ans, "grad")
    return vjp(vspace(ans).ones())


@_operator("value_and_grad")
def value_and_grad(fun: Callable, x: Any) -> tuple[Any, Any]:
    r"""Both $f(x)$ and $\nabla f(x)$ from one forward and one backward pass."""
    vjp, ans = _make_vjp(fun, x)
    _check_scalar_output(ans, "value_and_grad")
    return ans, vjp(vspace(ans).ones())


@_operator("elementwise_grad")
def elementwise_grad(fun: Callable, x: Any) -> Any:
    r"""The gradient of $\sum_i f(x)_i$: $J_f(x)^\top \mathbf{1}$.

    For an elementwise $f$ this is the vector of derivatives $f'(x_i)$.
    """
    vjp, ans = _make_vjp(fun, x)
    if vspace(ans).iscomplex:
        raise TypeError("ad_core.elementwise_grad: the function returned complex values")
    return vjp(vspace(ans).ones())


@_operator("holomorphic_grad")
def holomorphic_grad(fun: Callable, x: Any) -> Any:
    r"""$f'(z)$ of a holomorphic scalar function $f$ of a complex argument."""
    if not vspace(x).iscomplex:
        raise TypeError("ad_core.holomorphic_grad: the argument must be complex")
    vjp, ans = _make_vjp(fun, x)
    return vjp(vspace(ans).ones())


@_operator("jacobian")
def jacobian(fun: Callable, x: Any) -> np.ndarray:
    r"""The Jacobian $J_{ij} = \partial f_i / \partial x_j$, one VJP per output element.

    The result has shape `f(x).shape + x.shape`.
    """
    vjp, ans = _make_vjp(fun, x)
    out_space, in_space = vspace(ans), vspace(x)
    from . import numpy as anp

    rows = [vjp(basis) for basis in out_space.standard_basis()]
    if not rows:
        return np.zeros(out_space.shape + in_space.shape, in_space.dtype)
    return anp.reshape(anp.stack(rows), out_space.shape + in_space.shape)


def hessian(fun: Callable, argnum: int = 0) -> Callable:
    r"""The Hessian $H_{ij} = \partial^2 f / \partial x_i \partial x_j$, as the Jacobian of the gradient."""
    return jacobian(jacobian(fun, argnum), argnum)


@_operator("make_jvp")
def make_jvp(fun: Callable, x: Any) -> Callable:
    r"""`make_jvp(f)(x)` returns `v -> (f(x), J_f(x) v)`: forward mode, one pass per direction."""
    return _make_jvp(fun, x)


@_operator("make_vjp")
def make_vjp(fun: Callable, x: Any) -> tuple[Callable, Any]:
    r"""`make_vjp(f)(x)` returns `(u -> u^\top J_f(x), f(x))`: one trace, any number of VJPs."""
    return _make_vjp(fun, x)


def hessian_vector_product(fun: Callable, argnum: int = 0) -> Callable:
    r"""`hvp(*args, v)` is $H v$, computed forward-over-reverse: the JVP of the gradient.

    It costs one forward and one backward pass, never forming $H$.
    """
    gradient = grad(fun, argnum)

    def hvp(*args_and_vector):
        *args, vector = args_and_vector
        unary_grad, x = _unary(gradient, tuple(args), argnum, "hessian_vector_product")
        return _make_jvp(unary_grad, x)(vector)[1]

    return hvp


def hessian_vector_product_reverse(fun: Callable, argnum: int = 0) -> Callable:
    r"""$H v$ reverse-over-reverse: the gradient of $\langle \nabla f(x), v \rangle$."""
    gradient = grad(fun, argnum)

    def hvp(*args_and_vector):
        *args, vector = args_and_vector
        unary_grad, x = _unary(gradient, tuple(args), argnum, "hessian_vector_product")
        from . import numpy as anp

        return grad(lambda x: anp.sum(unary_grad(x) * getval(vector)))(x)

    return hvp
