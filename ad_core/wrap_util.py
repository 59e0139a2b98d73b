"""`autograd.wrap_util`: turn an operator on one-argument functions into one on n-argument functions.

    >>> from ad_core.core import make_vjp
    >>> @unary_to_nary
    ... def grad(fun, x):
    ...     vjp, _ = make_vjp(fun, x)
    ...     return vjp(1.0)
    >>> print(grad(lambda x, y: x * y, 1)(3.0, 2.0))
    3.0

`ad_core.grad` and friends are built the same way in `differential_operators` (`_nary`); this
module is the public form HIPS/autograd code imports to write operators of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _subvals(values: tuple, replacements: Any) -> tuple:
    values = list(values)
    for index, value in replacements:
        values[index] = value
    return tuple(values)


def unary_to_nary(unary_operator: Callable) -> Callable:
    """`unary_operator(fun, x, *op_args)` becomes `operator(fun, argnum=0, *op_args)(*args)`,
    which differentiates `fun` with respect to `args[argnum]` (a tuple `argnum`: a tuple of them)."""

    @wraps(unary_operator)
    def nary_operator(fun: Callable, argnum: Any = 0, *nary_op_args, **nary_op_kwargs):
        if type(argnum) not in (int, tuple, list):
            raise TypeError(f"{get_name(unary_operator)}: argnum must be an int or a tuple of ints, "
                            f"got {argnum!r}")

        @wrap_nary_f(fun, unary_operator, argnum)
        def nary_f(*args, **kwargs):
            @wraps(fun)
            def unary_f(x):
                if isinstance(argnum, int):
                    subargs = _subvals(args, [(argnum, x)])
                else:
                    subargs = _subvals(args, zip(argnum, x, strict=True))
                return fun(*subargs, **kwargs)

            x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in argnum)
            return unary_operator(unary_f, x, *nary_op_args, **nary_op_kwargs)

        return nary_f

    return nary_operator


def wraps(fun: Callable, namestr: str = "{fun}", docstr: str = "{doc}", **kwargs) -> Callable:
    """A decorator naming the wrapper from `fun`: `namestr` and `docstr` are formatted with
    `fun`'s name and docstring and `kwargs`."""

    def _wraps(f: Callable) -> Callable:
        try:
            f.__name__ = namestr.format(fun=get_name(fun), **kwargs)
            f.__doc__ = docstr.format(fun=get_name(fun), doc=get_doc(fun), **kwargs)
        except (AttributeError, TypeError):  # a callable whose name cannot be set
            pass
        return f

    return _wraps


def wrap_nary_f(fun: Callable, op: Callable, argnum: Any) -> Callable:
    namestr = "{op}_of_{fun}_wrt_argnum_{argnum}"
    docstr = """\
    {op} of function {fun} with respect to argument number {argnum}. Takes the
    same arguments as {fun} but returns the {op}.
    """
    return wraps(fun, namestr, docstr, op=get_name(op), argnum=argnum)


def get_name(f: Any) -> str:
    return getattr(f, "__name__", "[unknown name]")


def get_doc(f: Any) -> str:
    return getattr(f, "__doc__", "")
