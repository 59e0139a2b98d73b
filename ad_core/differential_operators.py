"""Layer 3, differential operators: `grad`, `jacobian`, `hessian` and friends.

Each operator takes a function of several arguments and differentiates it with respect to
one of them (`argnum`), by tracing a one-argument function with `make_vjp` or `make_jvp`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from . import numpy as anp
from .core import defvjp_argnum, vspace
from .core import make_jvp as _make_jvp
from .core import make_vjp as _make_vjp
from .tracer import Box, getval, primitive


def _check_float(x: Any, where: str) -> None:
    """Only floats and complex numbers (or containers of them) can be differentiated."""
    x = getval(x)
    if isinstance(x, list | tuple | dict):
        for item in x.values() if isinstance(x, dict) else x:
            _check_float(item, where)
        return
    if type(x) is float or (isinstance(x, np.ndarray | np.generic) and x.dtype.kind in "fc"):
        return
    if np.result_type(x).kind not in "fc":
        try:
            vspace(x)
        except TypeError as error:
            raise TypeError(f"{where}: {error}") from None
        raise TypeError(f"{where}: cannot differentiate a value of type {type(x).__name__}")


def _unary(fun: Callable, args: tuple, argnum: int | tuple[int, ...], operator: str) -> tuple[Callable, Any]:
    """Fix every argument but `args[argnum]`; check `argnum` and the argument's dtype.

    A tuple (or list) `argnum` differentiates with respect to several arguments at once, and
    the result is a tuple with one entry per argument.
    """
    several = isinstance(argnum, tuple | list)
    argnums = tuple(argnum) if several else (argnum,)
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

    if not several:
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


def _nary(build: Callable, fun: Callable, argnum: int | tuple[int, ...], name: str) -> Callable:
    """Turn `build(unary_fun, x)`, an operator on one-argument functions, into a function of
    `fun`'s own arguments that differentiates with respect to `args[argnum]`."""

    def differentiated(*args, **kwargs):
        unary_fun, x = _unary(lambda *a: fun(*a, **kwargs), args, argnum, name)
        return build(unary_fun, x)

    # Named for what it computes, as HIPS/autograd names it (`grad_of_loss_wrt_argnum_0`); the
    # signature is `fun`'s, which `inspect.signature` finds through `__wrapped__`.
    fun_name = getattr(fun, "__name__", type(fun).__name__)
    differentiated.__name__ = differentiated.__qualname__ = f"{name}_of_{fun_name}_wrt_argnum_{argnum}"
    differentiated.__doc__ = (
        f"{name} of function {fun_name} with respect to argument number {argnum}. Takes the same "
        f"arguments as {fun_name} but returns the {name} instead."
    )
    differentiated.__module__ = getattr(fun, "__module__", None)
    differentiated.__wrapped__ = fun
    return differentiated


def _check_scalar_output(value: Any, operator: str) -> None:
    if type(value) is float or (isinstance(value, np.ndarray | np.generic) and value.ndim == 0
                                and value.dtype.kind != "c"):
        return  # a real scalar: the usual case, checked without NumPy's Python-level helpers
    if np.size(value) != 1:  # one entry, as in autograd: shape (1,) or (1, 1) is a scalar too
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
    if np.result_type(getval(value)).kind == "b":
        raise TypeError(
            f"ad_core.{operator}: the function returned a boolean ({getval(value)!r}); a "
            "comparison or a test such as allclose has no derivative, so return a float instead"
        )


def grad(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""The gradient of a scalar function: $\nabla f(x) = J_f(x)^\top \cdot 1$.

    `grad(f, argnum=0)(*args)` returns a value of the shape (and container structure) of
    `args[argnum]` (a tuple of them for a tuple `argnum`), from one forward trace and one
    backward pass.
    """
    return _nary(_grad, fun, argnum, "grad")


def _output_seed(ans: Any) -> Any:
    """The cotangent $1$ of a scalar output. An integer output carries no derivative, so it
    cannot depend on the input (the trace has warned) and any seed gives the zero gradient."""
    return vspace(ans).ones() if np.result_type(getval(ans)).kind in "fc" else 1.0


def _grad(fun: Callable, x: Any) -> Any:
    vjp, ans = _make_vjp(fun, x)
    _check_scalar_output(ans, "grad")
    return vjp(_output_seed(ans))


def value_and_grad(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""`value_and_grad(f)(*args)` returns $(f(x), \nabla f(x))$ from one forward and one
    backward pass."""
    return _nary(_value_and_grad, fun, argnum, "value_and_grad")


def _value_and_grad(fun: Callable, x: Any) -> tuple[Any, Any]:
    vjp, ans = _make_vjp(fun, x)
    _check_scalar_output(ans, "value_and_grad")
    return ans, vjp(_output_seed(ans))


def elementwise_grad(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""The gradient of $\sum_i f(x)_i$: $J_f(x)^\top \mathbf{1}$.

    For an elementwise $f$ this is the vector of derivatives $f'(x_i)$.
    """
    return _nary(_elementwise_grad, fun, argnum, "elementwise_grad")


def _elementwise_grad(fun: Callable, x: Any) -> Any:
    vjp, ans = _make_vjp(fun, x)
    if vspace(ans).iscomplex:
        raise TypeError("ad_core.elementwise_grad: the function returned complex values")
    return vjp(vspace(ans).ones())


def holomorphic_grad(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""$f'(z)$ of a holomorphic scalar function $f$ of a complex argument."""
    return _nary(_holomorphic_grad, fun, argnum, "holomorphic_grad")


def _holomorphic_grad(fun: Callable, x: Any) -> Any:
    if not vspace(x).iscomplex:
        raise TypeError("ad_core.holomorphic_grad: the argument must be complex")
    vjp, ans = _make_vjp(fun, x)
    return vjp(vspace(ans).ones())


def jacobian(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""The Jacobian $J_{ij} = \partial f_i / \partial x_j$, one VJP per output element.

    `jacobian(f, argnum=0)(*args)` has shape `f(*args).shape + args[argnum].shape`.
    """
    return _nary(_jacobian, fun, argnum, "jacobian")


def _jacobian(fun: Callable, x: Any) -> Any:
    vjp, ans = _make_vjp(fun, x)
    out_space, in_space = vspace(ans), vspace(x)
    rows = [vjp(basis) for basis in out_space.standard_basis()]
    if not rows:
        return np.zeros(out_space.shape + in_space.shape, in_space.dtype)
    return anp.reshape(anp.stack(rows), out_space.shape + in_space.shape)


def hessian(fun: Callable, argnum: int = 0) -> Callable:
    r"""The Hessian $H_{ij} = \partial^2 f / \partial x_i \partial x_j$: the Jacobian of the
    gradient, of shape `x.shape + x.shape`."""
    return jacobian(jacobian(fun, argnum), argnum)


def make_jvp(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""`make_jvp(f, argnum=0)(*args)` returns `v -> (f(x), J_f(x) v)`: forward mode, one pass
    per direction."""
    return _nary(_make_jvp, fun, argnum, "make_jvp")


def make_vjp(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""`make_vjp(f, argnum=0)(*args)` returns the pair `(vjp, value)`, where `vjp(u)` is
    $u^\top J_f(x)$ and `value` is $f(x)$: one trace, then any number of VJPs."""
    return _nary(_make_vjp, fun, argnum, "make_vjp")


def hessian_vector_product(fun: Callable, argnum: int = 0) -> Callable:
    r"""`hvp(*args, v)` is $H v$, computed forward-over-reverse: the JVP of the gradient.

    It runs the gradient's forward and backward pass once, in forward mode, so every value
    carries a tangent: a small constant times the cost of one gradient, and $H$ is never
    formed. (HIPS/autograd 1.9.1 computes the same product reverse-over-reverse.)
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
        return grad(lambda x: anp.sum(unary_grad(x) * getval(vector)))(x)

    return hvp


# ---------------------------------------------------------------------------------------------
# The rest of HIPS/autograd's operators, so that code written for it runs after one import
# changes. Each is a few lines on top of the operators above.
# ---------------------------------------------------------------------------------------------


def deriv(fun: Callable, argnum: int = 0) -> Callable:
    r"""The derivative $f'(x)$ along the all-ones direction: for a function of one scalar, its
    derivative; in general $J_f(x)\,\mathbf{1}$, one forward pass."""
    return _nary(_deriv, fun, argnum, "deriv")


def _deriv(fun: Callable, x: Any) -> Any:
    return _make_jvp(fun, x)(vspace(x).ones())[1]


def grad_and_aux(fun: Callable, argnum: int | tuple[int, ...] = 0) -> Callable:
    r"""For `fun` returning `(value, aux)`: the pair `(gradient, aux)`, where the gradient is
    $\nabla\,\text{value}$ and `aux` is anything the function hands back alongside it
    (predictions, a breakdown of the loss), returned as computed, not differentiated."""
    return _nary(_grad_and_aux, fun, argnum, "grad_and_aux")


def _unbox_level(x: Any, level: int) -> Any:
    """`x` with the boxes of trace `level` opened, inside lists, tuples and dicts too; boxes of
    outer traces stay, so an outer trace can still differentiate through `aux`."""
    if isinstance(x, Box):
        return x._value if x._trace == level else x
    if isinstance(x, list | tuple):
        return type(x)(_unbox_level(item, level) for item in x)
    if isinstance(x, dict):
        return {key: _unbox_level(value, level) for key, value in x.items()}
    return x


def _grad_and_aux(fun: Callable, x: Any) -> tuple[Any, Any]:
    kept = {}

    def value_only(x):
        value, kept["aux"] = fun(x)
        kept["level"] = x._trace
        return value

    vjp, ans = _make_vjp(value_only, x)
    _check_scalar_output(ans, "grad_and_aux")
    return vjp(vspace(ans).ones()), _unbox_level(kept["aux"], kept["level"])


def grad_named(fun: Callable, argname: str) -> Callable:
    """`grad` with respect to the parameter called `argname` in `fun`'s signature."""
    names = list(inspect.signature(fun).parameters)
    if argname not in names:
        raise ValueError(f"ad_core.grad_named: {fun.__name__} has no parameter {argname!r}; it has {names}")
    return grad(fun, names.index(argname))


def make_hvp(fun: Callable, argnum: int = 0) -> Callable:
    r"""`make_hvp(f)(*args)` returns the pair `(hvp, gradient)`, where `hvp(v)` is $H v$ and
    `gradient` is $\nabla f(x)$: one trace of the gradient, then any number of Hessian-vector
    products, each one reverse pass over it."""
    return _nary(_make_hvp, fun, argnum, "make_hvp")


def _make_hvp(fun: Callable, x: Any) -> tuple[Callable, Any]:
    return _make_vjp(grad(fun), x)


hessian_tensor_product = hessian_vector_product


def vector_jacobian_product(fun: Callable, argnum: int = 0) -> Callable:
    r"""`vjp(*args, v)` is $v^\top J_f(x)$, as in autograd: the Jacobian of
    `tensordot(v, f(x), v.ndim)`, which contracts all of `v`'s axes with the leading axes of
    `f`'s output, with respect to `args[argnum]`."""

    def vjp(*args_and_vector):
        *args, vector = args_and_vector
        def contracted(*args):
            return anp.tensordot(vector, fun(*args), np.ndim(vector))

        return jacobian(contracted, argnum)(*args)

    return vjp


tensor_jacobian_product = vector_jacobian_product


def make_ggnvp(f: Callable, g: Callable | None = None, f_argnum: int = 0) -> Callable:
    r"""The generalized Gauss-Newton product of $L = g \circ f$:
    `make_ggnvp(f, g)(*args)` returns $v \mapsto J_f^\top \nabla^2 g\, J_f\, v$.

    It is the Hessian of $L$ without the terms that need second derivatives of $f$, positive
    semi-definite whenever $g$ is convex. The default $g(y) = \tfrac12 \sum y^2$ sums over the
    last axis, as in autograd, so it is a scalar, and gives $J_f^\top J_f v$, only when $f$
    returns a vector; for an output with more axes pass a `g` of your own.
    """
    outer = g if g is not None else (lambda y: 0.5 * anp.sum(y**2, axis=-1))

    def build(f, x):
        f_vjp, f_x = _make_vjp(f, x)
        g_hvp, _ = _make_vjp(grad(outer), f_x)
        f_jvp = _make_jvp(f, x)
        return lambda v: f_vjp(g_hvp(f_jvp(v)[1]))

    return _nary(build, f, f_argnum, "make_ggnvp")


def multigrad_dict(fun: Callable) -> Callable:
    """`multigrad_dict(f)(*args, **kwargs)`: the gradient with respect to every argument passed,
    as a dict from parameter name to gradient (one trace, one backward pass)."""
    signature = inspect.signature(fun)

    def gradients(*args, **kwargs):
        passed = signature.bind(*args, **kwargs).arguments

        def call(values):
            bound = inspect.BoundArguments(signature, {name: values[name] for name in passed})
            return fun(*bound.args, **bound.kwargs)

        return grad(call)(dict(passed))

    return gradients


def checkpoint(fun: Callable) -> Callable:
    """`fun` as one primitive that keeps only its inputs and output on the tape; its VJP runs
    `fun` again, traced, during the backward pass (rematerialisation). The forward pass runs `fun`
    once, untraced, so none of its intermediate values outlive the call; the backward pass runs it
    a second time and differentiates that run. Memory kept between the passes drops from every
    intermediate of `fun` to its arguments, for one extra forward evaluation of `fun`. Reverse
    mode only.

    HIPS/autograd 1.9.1's `checkpoint` differs: its VJP maker calls `make_vjp` when the rule is
    made, in the forward pass, so `fun` runs twice there and its traced intermediates stay alive
    until the backward pass."""
    def recompute_vjp(argnum, ans, args, kwargs):
        def vjp_by_recomputing(g):
            # Traced again only now: the forward pass kept nothing of fun's inside.
            return make_vjp(lambda *a: fun(*a, **kwargs), argnum)(*args)[0](g)

        return vjp_by_recomputing

    wrapped = primitive(fun)
    defvjp_argnum(wrapped, recompute_vjp)
    return wrapped
