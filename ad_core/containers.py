"""Differentiating with respect to lists, tuples and dicts of arrays (a model's parameters).

A traced container is a `SequenceBox` or `DictBox`; reading an element is the primitive
`container_take`. Its cotangent is sparse: only the element read receives anything, so the
backward pass collects per-element contributions in a `SparseCotangent` (see `core`) and fills
in zeros once, when it reaches the container itself. A container's vector space,
`ContainerVSpace`, is the product of its elements' spaces; it is registered with `core.VSpace`,
so that `vspace` and `add_cotangents` treat lists, tuples and dicts as vectors.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .core import (
    SparseCotangent,
    VSpace,
    add_cotangents,
    defjvp,
    defjvp_argnum,
    defvjp,
    defvjp_argnum,
    vspace,
)
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
    pack = staticmethod(pack_output)  # how `core.make_vjp` makes one traced output of a list

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
    pack = staticmethod(pack_output)

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


class ContainerVSpace:
    """The product space of a list, tuple or dict of values: one vector space per element."""

    def __init__(self, value: list | tuple | dict) -> None:
        self.kind = type(value)
        self.keys = list(value.keys()) if isinstance(value, dict) else list(range(len(value)))
        items = value.values() if isinstance(value, dict) else value
        self.spaces = [vspace(item) for item in items]
        self.shape = ()

    def _build(self, items: list) -> Any:
        if self.kind is dict:
            return dict(zip(self.keys, items, strict=True))
        return self.kind(items)

    def _items(self, x: Any) -> list:
        return [x[key] for key in self.keys]

    @property
    def size(self) -> int:
        return sum(space.size for space in self.spaces)

    @property
    def iscomplex(self) -> bool:
        return any(space.iscomplex for space in self.spaces)

    def zeros(self) -> Any:
        return self._build([space.zeros() for space in self.spaces])

    def ones(self) -> Any:
        return self._build([space.ones() for space in self.spaces])

    def randn(self, rng: np.random.Generator | None = None) -> Any:
        return self._build([space.randn(rng) for space in self.spaces])

    def standard_basis(self):
        for position, space in enumerate(self.spaces):
            for vector in space.standard_basis():
                items = [other.zeros() for other in self.spaces]
                items[position] = vector
                yield self._build(items)

    def inner_prod(self, x: Any, y: Any) -> float:
        return sum(
            space.inner_prod(a, b)
            for space, a, b in zip(self.spaces, self._items(x), self._items(y), strict=True)
        )

    def covector(self, x: Any) -> Any:
        return self._build(
            [space.covector(a) for space, a in zip(self.spaces, self._items(x), strict=True)]
        )

    def add(self, x: Any, y: Any) -> Any:
        """Element by element. A traced container (a derivative being differentiated again)
        is read through traced reads, and the sums are packed into a traced container again."""
        if isinstance(x, Box) or isinstance(y, Box):
            return container_pack(self.kind, tuple(self.keys),
                                  *(add_cotangents(x[key], y[key]) for key in self.keys))
        return self._build([add_cotangents(x[key], y[key]) for key in self.keys])

    def scale(self, x: Any, factor: float) -> Any:
        return self._build([space.scale(a, factor)
                            for space, a in zip(self.spaces, self._items(x), strict=True)])

    scalar_mul = scale

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ContainerVSpace)
                and (self.kind, self.keys, self.spaces) == (other.kind, other.keys, other.spaces))

    def __hash__(self) -> int:
        return hash((self.kind, tuple(self.spaces)))

    def __repr__(self) -> str:
        return f"ContainerVSpace({self.kind.__name__}, {dict(zip(self.keys, self.spaces, strict=True))})"


for _kind in (list, tuple, dict):
    VSpace.register(_kind, ContainerVSpace)
