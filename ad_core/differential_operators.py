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
from .core import defjvp, defjvp_argnum, defvjp, defvjp_argnum, vspace
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


class _Recomputation:
    """What the VJPs of one checkpointed node share: the arguments the node traces, and the
    contributions of the one recomputation that serves them all, until each has taken its own."""

    __slots__ = ("argnums", "contributions", "cotangent")

    def __init__(self) -> None:
        self.argnums: list[int] = []
        self.contributions: dict[int, Any] = {}
        self.cotangent: Any = None


_RECOMPUTATIONS = "_checkpoint_recomputations"  # the keyword that carries them to the rules


def checkpoint(fun: Callable) -> Callable:
    r"""`fun` as one primitive that keeps only its inputs on the tape; its VJP runs `fun` again,
    traced, during the backward pass (rematerialisation).

    The forward pass runs `fun` once, untraced, so none of its intermediate values outlive the
    call; the backward pass runs it once more, under `make_vjp` with respect to every argument
    the node traces, and pulls the cotangent through that run. Memory kept between the passes
    drops from every intermediate of `fun` to its arguments, for one extra forward evaluation:
    for a block $y = f(x)$ the rule is $\bar x = \bar y^\top J_f(x)$ with $J_f(x)$ rebuilt from
    $x$ when $\bar y$ arrives. Each backward pass (each `vjp(g)`, each row of a `jacobian`)
    recomputes once. Under `grad(grad(...))` the outer trace records the recomputation like any
    other code, so second derivatives are right but the outer pass saves nothing.

    Forward mode keeps no tape, so there is nothing to save: the JVP runs `fun` once more per
    traced argument, under `make_jvp`.

    HIPS/autograd 1.9.1's `checkpoint` differs: its VJP maker calls `make_vjp` when the rule is
    made, in the forward pass, so `fun` runs twice there and its traced intermediates stay alive
    until the backward pass."""

    def run_block(*args, **kwargs):
        kwargs.pop(_RECOMPUTATIONS, None)
        return fun(*args, **kwargs)

    def recompute_vjp(argnum, ans, args, kwargs):
        kwargs = dict(kwargs)
        # One node per trace level shares the call's keywords; its output tells the nodes apart.
        shared = kwargs.pop(_RECOMPUTATIONS).setdefault(id(ans), _Recomputation())
        shared.argnums.append(argnum)

        def vjp_by_recomputing(g):
            if shared.cotangent is not g or argnum not in shared.contributions:
                # Traced again only now: the forward pass kept nothing of fun's inside.
                argnums = tuple(shared.argnums)
                traced = argnums if len(argnums) > 1 else argnums[0]
                pull_back = make_vjp(lambda *a: fun(*a, **kwargs), traced)(*args)[0]
                contributions = pull_back(g)
                shared.contributions = dict(zip(argnums, contributions if len(argnums) > 1
                                                else (contributions,), strict=True))
                shared.cotangent = g
            contribution = shared.contributions.pop(argnum)
            if not shared.contributions:
                shared.cotangent = None  # hold no cotangent once every argument has its share
            return contribution

        return vjp_by_recomputing

    def tangent_by_rerunning(argnum, g, ans, args, kwargs):
        kwargs = {key: value for key, value in kwargs.items() if key != _RECOMPUTATIONS}
        return make_jvp(lambda *a: fun(*a, **kwargs), argnum)(*args)(g)[1]

    block = primitive(run_block)
    block.__name__ = getattr(fun, "__name__", block.__name__)
    block.__qualname__ = getattr(fun, "__qualname__", block.__name__)
    block.__doc__ = getattr(fun, "__doc__", None)
    defvjp_argnum(block, recompute_vjp)
    defjvp_argnum(block, tangent_by_rerunning)

    def checkpointed(*args, **kwargs):
        return block(*args, **kwargs, **{_RECOMPUTATIONS: {}})

    checkpointed.__name__ = block.__name__
    checkpointed.__qualname__ = block.__qualname__
    checkpointed.__doc__ = block.__doc__
    checkpointed.__wrapped__ = fun
    checkpointed.block = block  # the primitive itself, whose node the tape keeps
    return checkpointed


# ---------------------------------------------------------------------------------------------
# Gradients that are not the derivative
# ---------------------------------------------------------------------------------------------


def _stop_gradient(x: Any) -> Any:
    return x


stop_gradient = primitive(_stop_gradient)
stop_gradient.__name__ = stop_gradient.__qualname__ = "stop_gradient"
stop_gradient.__doc__ = """`x` unchanged, as a constant for every differential operator: its VJP and
its JVP are zero.

    >>> from ad_core import grad, stop_gradient
    >>> print(grad(lambda x: x * stop_gradient(x))(3.0))
    3.0

The call is still recorded, so a traced graph shows a `stop_gradient` node, and the backward
pass sends zeros to the nodes above it. It stops every level of a nested differentiation, as
JAX's [`jax.lax.stop_gradient`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.stop_gradient.html)
does; HIPS/autograd 1.9.1 has no such function."""
defvjp(stop_gradient, None)
defjvp(stop_gradient, None)


def custom_vjp(fun: Callable) -> Callable:
    """Declare `fun` a primitive whose reverse-mode rule you give: `primitive(fun)` with a
    `defvjp` method, so that the function and its rule read as one declaration.

        >>> import ad_core.numpy as anp
        >>> from ad_core import grad, custom_vjp
        >>> @custom_vjp
        ... def softplus(x):
        ...     return anp.logaddexp(0.0, x)
        >>> _ = softplus.defvjp(lambda ans, x: lambda g: g / (1.0 + anp.exp(-x)))
        >>> print(grad(softplus)(0.0))
        0.5

    `f.defvjp(maker_0, maker_1, ...)` is `ad_core.extend.defvjp(f, maker_0, ...)`: one maker
    per argument, `maker(ans, *args, **kwargs)` returns `g -> contribution`, and `None` means a
    zero contribution. It returns `f`. `fun` runs on unboxed values, so the engine never traces
    its inside; write the rule with `ad_core.numpy` and it can itself be differentiated
    (`grad(grad(f))`). The maker is called in the forward pass and its closure keeps what the
    rule needs: that closure plays the role of the residuals that JAX's
    [`jax.custom_vjp`](https://docs.jax.dev/en/latest/_autosummary/jax.custom_vjp.html)
    (`f.defvjp(f_fwd, f_bwd)`) returns from `f_fwd`. Reverse mode only, as in JAX;
    add a forward rule with `ad_core.extend.defjvp` if you need one."""
    wrapped = primitive(fun)

    def declare_vjp(*vjpmakers: Callable | None, argnums: Any = None) -> Callable:
        defvjp(wrapped, *vjpmakers, argnums=argnums)
        return wrapped

    wrapped.defvjp = declare_vjp
    return wrapped
