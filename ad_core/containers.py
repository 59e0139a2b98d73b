"""Differentiating with respect to lists, tuples and dicts of arrays (a model's parameters).

A traced container is a `SequenceBox` or `DictBox`; reading an element is the primitive
`container_take`. Its cotangent is sparse: only the element read receives anything, so the
backward pass collects per-element contributions in a `SparseCotangent` (see `core`) and fills
in zeros once, when it reaches the container itself.
"""

from __future__ import annotations

import operator
from typing import Any

from .core import SparseCotangent, defjvp, defjvp_argnum, defvjp, defvjp_argnum, vspace
from .tracer import Box, getval, primitive


@primitive
def container_take(container: Any, key: Any) -> Any:
    """`container[key]` as a primitive, so that reading a parameter is traced."""
    return container[key]


def _position(container: Any, key: Any) -> Any:
    """The key under which a read is recorded: a sequence index counted from the front.

    `SparseCotangent.materialize` looks elements up by position `0, 1, ...`, so a read
    through `params[-1]` must be recorded as `params[len - 1]`, or its cotangent is never found.
    """
    if isinstance(container, list | tuple) and not isinstance(key, slice):
        return operator.index(key) % len(container)
    return key


def _take_vjp(ans: Any, container: Any, key: Any) -> Any:
    # Inside a derivative of a derivative the container is itself a box of the outer trace;
    # the cotangent only needs its structure (which keys, which zeros), so it keeps the value.
    structure = getval(container)
    return lambda g: SparseCotangent({_position(structure, key): g}, structure)


defvjp(container_take, _take_vjp)
defjvp(container_take, lambda g, ans, container, key: g[key])


@primitive
def container_pack(kind: type, keys: tuple, *values: Any) -> Any:
    """A list, tuple or dict built from traced values: how a function returns a container."""
    if kind is dict:
        return dict(zip(keys, values, strict=True))
    return kind(values)


def _pack_vjp(argnum, ans, args, kwargs):
    key = args[1][argnum - 2]  # arguments 0 and 1 are the kind and the keys
    return lambda g: g[key]


def _pack_jvp(argnum, g, ans, args, kwargs):
    """The tangent of one element, with zeros for the others (the node adds them up)."""
    kind, keys, *values = args
    position = argnum - 2
    tangents = [g if index == position else vspace(value).zeros() for index, value in enumerate(values)]
    return container_pack(kind, keys, *tangents)


defvjp_argnum(container_pack, _pack_vjp)
defjvp_argnum(container_pack, _pack_jvp)


def pack_output(value: Any) -> Any:
    """A function's output with every list, tuple or dict that holds traced values (at any
    depth) rebuilt by `container_pack`, so that the output is one traced value."""
    if isinstance(value, Box) or not isinstance(value, list | tuple | dict):
        return value
    keys = tuple(value) if isinstance(value, dict) else tuple(range(len(value)))
    items = [pack_output(value[key]) for key in keys]
    if not any(isinstance(item, Box) for item in items):
        return value
    return container_pack(dict if isinstance(value, dict) else type(value), keys, *items)


class SequenceBox(Box):
    """A traced list or tuple: indexing and unpacking read traced elements."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return [container_take(self, index) for index in range(len(self._value))[key]]
        return container_take(self, key)

    def __len__(self) -> int:
        return len(self._value)

    def __iter__(self):
        return (container_take(self, index) for index in range(len(self._value)))


class DictBox(Box):
    """A traced dict: `box[key]`, `.items()` and `.values()` read traced elements."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        return container_take(self, key)

    def __len__(self) -> int:
        return len(self._value)

    def __iter__(self):
        return iter(self._value)

    def __contains__(self, key: Any) -> bool:
        return key in self._value

    def keys(self):
        return self._value.keys()

    def values(self):
        return [container_take(self, key) for key in self._value]

    def items(self):
        return [(key, container_take(self, key)) for key in self._value]

    def get(self, key: Any, default: Any = None) -> Any:
        return container_take(self, key) if key in self._value else default


SequenceBox.register(list)
SequenceBox.register(tuple)
DictBox.register(dict)
