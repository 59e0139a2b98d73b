"""`check_grads`: compare the engine's JVPs and VJPs with central finite differences."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .core import vspace
from .differential_operators import make_jvp, make_vjp
from .tracer import getval

EPS = 1e-6
RTOL = 1e-6
ATOL = 1e-6


class GradientCheckError(AssertionError):
    """A derivative disagrees with finite differences."""


def numerical_jvp(f: Callable, x: Any, v: Any, eps: float = EPS) -> Any:
    r"""Central difference along `v`:
    $\frac{f(x + \frac{\epsilon}{2} v) - f(x - \frac{\epsilon}{2} v)}{\epsilon}$."""
    space = vspace(x)
    forward = f(space.add(x, space.scale(v, eps / 2)))
    backward = f(space.add(x, space.scale(v, -eps / 2)))
    out_space = vspace(forward)
    return out_space.scale(out_space.add(forward, out_space.scale(backward, -1.0)), 1 / eps)


def _name(f: Callable) -> str:
    return getattr(f, "__name__", type(f).__name__)


def _fail(
    f: Callable, argnum: int, mode: str, order: int, what: str, expected: Any, computed: Any,
    source: str = "central differences",
) -> None:
    check = "VJP" if mode == "rev" else "JVP"  # autograd's wording, which its tests match
    raise GradientCheckError(
        f"check_grads: ({check}) check of {_name(f)} failed: argument {argnum}, mode {mode!r}, "
        f"order {order}: {what}\n"
        f"  expected ({source}): {getval(expected)!r}\n"
        f"  computed (ad_core): {getval(computed)!r}"
    )


def _allclose(a: Any, b: Any, rtol: float, atol: float) -> bool:
    """`np.allclose`, entry by entry for containers (whose arrays may differ in shape)."""
    a, b = getval(a), getval(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_allclose(a[k], b[k], rtol, atol) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_allclose(x, y, rtol, atol) for x, y in zip(a, b, strict=True))
    return bool(np.allclose(a, b, rtol=rtol, atol=atol))


def _check_close(f, a, b, argnum, mode, order, what, rtol, atol) -> None:
    if not _allclose(a, b, rtol, atol):
        _fail(f, argnum, mode, order, what, a, b)


def _shapes(value: Any) -> Any:
    """The shape of an array, or the shapes of a container's elements."""
    value = getval(value)
    if isinstance(value, dict):
        return {key: _shapes(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_shapes(item) for item in value]
    return np.shape(value)


def check_vjp(f, x, rng, argnum=0, order=1, eps=EPS, rtol=RTOL, atol=ATOL) -> None:
    r"""The inner-product identity $\langle u, J v\rangle = \langle J^\top u, v\rangle$, with $J v$
    from central differences and $J^\top u$ from the engine's backward pass."""
    vjp, y = make_vjp(f)(x)
    x_space, y_space = vspace(x), vspace(y)
    x_direction, y_direction = x_space.randn(rng), y_space.randn(rng)
    cotangent = vjp(y_space.covector(y_direction))
    if _shapes(cotangent) != _shapes(x):
        _fail(f, argnum, "rev", order, "VJP has the wrong shape", _shapes(x), _shapes(cotangent),
              source="the argument's shape")
    exact = x_space.inner_prod(x_direction, x_space.covector(cotangent))
    numeric = y_space.inner_prod(y_direction, numerical_jvp(f, x, x_direction, eps))
    _check_close(f, numeric, exact, argnum, "rev", order, "<u, J v> != <J^T u, v>", rtol, atol)


def check_jvp(f, x, rng, argnum=0, order=1, eps=EPS, rtol=RTOL, atol=ATOL) -> None:
    """The engine's forward-mode $J v$ against central differences along `v`."""
    x_direction = vspace(x).randn(rng)
    y, tangent = make_jvp(f)(x)(x_direction)
    if _shapes(tangent) != _shapes(y):
        _fail(f, argnum, "fwd", order, "JVP has the wrong shape", _shapes(y), _shapes(tangent),
              source="the output's shape")
    numeric = numerical_jvp(f, x, x_direction, eps)
    _check_close(f, numeric, tangent, argnum, "fwd", order, "J v differs", rtol, atol)


def _named(f: Callable, name: str) -> Callable:
    f.__name__ = name
    return f


def _own_rng(level: int) -> np.random.Generator:
    """Directions for the check along the direction, from a generator of their own: the other
    checks draw the same directions as they would without it."""
    return np.random.default_rng(level)


def _check_derivatives(f, x, modes, order, rng, argnum, level, **tolerances) -> None:
    """Check `f` at `x`; for `order > 1`, check its JVP and VJP as functions of the point (to
    `order - 1`) and, once, of the direction: a rule's own derivative must be right with respect
    to its input and to the tangent or cotangent it is given (HIPS/autograd checks both jointly)."""
    if "fwd" in modes:
        check_jvp(f, x, rng, argnum, level, **tolerances)
        if order > 1:
            direction = vspace(x).randn(rng)
            jvp_at = _named(lambda x: make_jvp(f)(x)(direction)[1], f"jvp_{_name(f)}")
            _check_one(jvp_at, x, modes, order - 1, rng, argnum, level + 1, **tolerances)
            jvp_along = _named(lambda v: make_jvp(f)(x)(v)[1], jvp_at.__name__)
            _check_one(jvp_along, direction, ("fwd",), 1, _own_rng(level), argnum, level + 1, **tolerances)
    if "rev" in modes:
        check_vjp(f, x, rng, argnum, level, **tolerances)
        if order > 1:
            cotangent = vspace(f(x)).randn(rng)
            vjp_at = _named(lambda x: make_vjp(f)(x)[0](cotangent), f"vjp_{_name(f)}")
            _check_one(vjp_at, x, modes, order - 1, rng, argnum, level + 1, **tolerances)
            vjp_along = _named(lambda g: make_vjp(f)(x)[0](g), vjp_at.__name__)
            _check_one(vjp_along, cotangent, ("rev",), 1, _own_rng(level), argnum, level + 1, **tolerances)


def _check_one(f, x, modes, order, rng, argnum, level, **tolerances) -> None:
    with warnings.catch_warnings():
        if level > 1:
            # The derivative of a linear function does not depend on x; that is no error here.
            warnings.simplefilter("ignore", UserWarning)
        _check_derivatives(f, x, modes, order, rng, argnum, level, **tolerances)






def _is_differentiable(value: Any) -> bool:
    try:
        vspace(value)
    except (TypeError, ValueError):
        return False
    return True


def check_grads(
    fun: Callable,
    argnum: int | Sequence[int] | None = None,
    modes: Sequence[str] = ("fwd", "rev"),
    order: int = 2,
    seed: int = 0,
    eps: float = EPS,
    rtol: float = RTOL,
    atol: float = ATOL,
) -> Callable[..., None]:
    """`check_grads(f)(*args)` checks every float argument (or those in `argnum`) in each mode,
    recursing to derivatives of derivatives up to `order`, and raises `GradientCheckError`
    naming the argument, mode, order, expected and computed values on the first mismatch.
    """
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ValueError(f"check_grads: unknown modes {sorted(unknown)}; use 'fwd' and/or 'rev'")

    def checker(*args: Any, **kwargs: Any) -> None:
        rng = np.random.default_rng(seed)
        if argnum is None:
            argnums = [i for i, a in enumerate(args) if _is_differentiable(a)]
        else:
            argnums = [argnum] if isinstance(argnum, int) else list(argnum)
        for i in argnums:

            def unary(x, i=i):
                return fun(*args[:i], x, *args[i + 1 :], **kwargs)

            unary.__name__ = _name(fun)

            _check_one(unary, args[i], modes, order, rng, i, 1, eps=eps, rtol=rtol, atol=atol)

    return checker


# ---------------------------------------------------------------------------------------------
# HIPS/autograd's other test helpers, for tests written against `autograd.test_util`
# ---------------------------------------------------------------------------------------------


def scalar_close(a: Any, b: Any) -> bool:
    """Two scalars agree to 1e-6, absolutely or relatively (autograd's tolerance)."""
    return bool(abs(a - b) < ATOL or abs(a - b) / abs(a + b) < RTOL)


def check_equivalent(x: Any, y: Any) -> None:
    """`x` and `y` live in the same vector space and agree along a random direction."""
    x_space, y_space = vspace(x), vspace(y)
    assert x_space == y_space, f"VSpace mismatch:\nx: {x_space}\ny: {y_space}"
    v = x_space.randn()
    assert scalar_close(x_space.inner_prod(x, v), x_space.inner_prod(y, v)), (
        f"Value mismatch:\nx: {x}\ny: {y}"
    )


def combo_check(fun: Callable, *args: Any, **kwargs: Any) -> Callable[..., None]:
    """`combo_check(fun, argnum, ...)(xs, ys, axis=[0, 1])` runs `check_grads(fun, argnum, ...)`
    on every combination of one value from each list, positional and keyword."""
    check = check_grads(fun, *args, **kwargs)

    def _combo_check(*arg_lists: Any, **kwarg_lists: Any) -> None:
        keyword_choices = [[(key, value) for value in values] for key, values in kwarg_lists.items()]
        for chosen_args in itertools.product(*arg_lists):
            for chosen_kwargs in itertools.product(*keyword_choices):
                check(*chosen_args, **dict(chosen_kwargs))

    return _combo_check
