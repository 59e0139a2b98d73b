"""`ad_core.builtins`: Python's container constructors and type checks, for traced values.

The same names as `autograd.builtins` (and, as there, importable from `ad_core` itself):

- `isinstance(x, classinfo)` and `type(x)` look through boxes, so code that branches on
  `isinstance(params, dict)` takes the same branch while it is being differentiated;
- `tuple(items)`, `list(items)` and `dict(...)` build a container from elements that may be
  traced. The container is then one traced value (made by `container_pack`), which can be
  indexed, returned from the function, or passed on, and gradients flow through each element.
  Built from plain values, they return Python's own `tuple`, `list` or `dict`.

`isinstance(x, ad_core.builtins.tuple)` is true of every tuple, traced or not, so the names
can replace Python's in a module without changing what its type checks mean.
"""

from __future__ import annotations

import builtins as _python
from typing import Any

from .containers import container_pack
from .tracer import Box, getval, notrace_primitive

# Python's own, under names that the classes below do not shadow.
tuple_, list_, dict_ = _python.tuple, _python.list, _python.dict
isinstance = notrace_primitive(_python.isinstance)
type = notrace_primitive(_python.type)


class _ContainerMeta(_python.type):
    """Makes `isinstance(x, tuple)` (this module's tuple) test Python's tuple, through boxes."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return _python.isinstance(getval(instance), cls.python_type)


def _pack(kind: _python.type, keys: _python.tuple, values: _python.list) -> Any:
    if not _python.any(_python.isinstance(value, Box) for value in values):
        return dict_(zip(keys, values, strict=True)) if kind is dict_ else kind(values)
    return container_pack(kind, keys, *values)


class tuple(tuple_, metaclass=_ContainerMeta):
    """`tuple(items)`: a tuple whose elements may be traced."""

    python_type = tuple_

    def __new__(cls, items: Any = ()) -> Any:
        values = list_(items)
        return _pack(tuple_, tuple_(range(len(values))), values)


class list(list_, metaclass=_ContainerMeta):
    """`list(items)`: a list whose elements may be traced."""

    python_type = list_

    def __new__(cls, items: Any = ()) -> Any:
        values = list_(items)
        return _pack(list_, tuple_(range(len(values))), values)


class dict(dict_, metaclass=_ContainerMeta):
    """`dict(...)`, with the arguments of Python's `dict`: a dict whose values may be traced."""

    python_type = dict_

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        plain = dict_(*args, **kwargs)
        return _pack(dict_, tuple_(plain), list_(plain.values()))
