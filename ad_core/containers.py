"""Differentiating with respect to lists, tuples and dicts of arrays (a model's parameters).

A traced container is a `SequenceBox` or `DictBox`; reading an element is the primitive
`container_take`. Its cotangent is sparse: only the element read receives anything, so the
backward pass collects per-element contributions in a `SparseCotangent` (see `core`) and fills
in zeros once, when it reaches the container itself.
"""

from __future__ import annotations

import operator
from typing import Any

from .core import SparseCotangent, defjvp, defvjp
from .tracer import Box, primitive


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


defvjp(
    container_take,
    lambda ans, container, key: lambda g: SparseCotangent({_position(container, key): g}, container),
)
defjvp(container_take, lambda g, ans, container, key: g[key])


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


SequenceBox.register(list)
SequenceBox.register(tuple)
DictBox.register(dict)
