"""The recorder: what the engine really does, captured while it does it.

The engine calls the hooks below only while a `record()` block is active (`active` is not
None), so when it is off recording costs one `is not None` test at each place that could
record: each primitive call, each node and edge of a backward pass, each stage of
`unbroadcast` and `broadcast`. Every array stored is a copy of what the engine computed at
that moment, never a recomputation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

active: Recording | None = None


@dataclass(frozen=True)
class Event:
    """One step of the engine: `kind` is forward, visit, vjp, unbroadcast, accumulate, jvp or
    broadcast; `node` is the recording's id of the node concerned."""

    step: int
    kind: str
    node: int | None
    primitive: str | None
    argnum: int | None
    value: Any
    shape: tuple
    detail: dict = field(default_factory=dict)

    @property
    def ndim(self) -> int:
        return len(self.shape)


def _snapshot(value: Any) -> Any:
    from .tracer import getval

    value = getval(value)
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value


def _name(fun: Callable | None) -> str:
    return "root" if fun is None else fun.__name__


class Recording:
    """The events of one `record()` block, in the order the engine produced them."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._ids: dict[int, int] = {}
        self._keep_alive: list[Any] = []
        self._counts: dict[int, int] = {}

    def node_id(self, node: Any) -> int:
        key = id(node)
        if key not in self._ids:
            self._ids[key] = len(self._ids)
            self._keep_alive.append(node)
        return self._ids[key]

    def _emit(self, kind, node, primitive, argnum, value, **detail) -> None:
        value = _snapshot(value)
        self.events.append(
            Event(len(self.events), kind, node, primitive, argnum, value, np.shape(value), detail)
        )

    def of_kind(self, *kinds: str) -> list[Event]:
        return [event for event in self.events if event.kind in kinds]

    # Hooks called by the engine -----------------------------------------------------------

    def on_forward(self, node, fun, ans, parents, parent_argnums) -> None:
        parent_ids = tuple(self.node_id(parent) for parent in parents)
        self._emit(
            "forward", self.node_id(node), _name(fun), None, ans,
            parents=parent_ids, argnums=parent_argnums,
        )

    def on_visit(self, node, g) -> None:
        self._emit("visit", self.node_id(node), _name(node.fun), None, g)

    def on_vjp(self, node, argnum, g, contribution) -> None:
        self._emit(
            "vjp", self.node_id(node), _name(node.fun), argnum, contribution,
            cotangent=_snapshot(g),
        )

    def on_accumulate(self, parent, previous, contribution, total) -> None:
        parent_id = self.node_id(parent)
        self._counts[parent_id] = self._counts.get(parent_id, 0) + 1
        self._emit(
            "accumulate", parent_id, _name(parent.fun), None, total,
            before=None if previous is None else _snapshot(previous),
            contribution=_snapshot(contribution), count=self._counts[parent_id],
        )

    def on_jvp(self, node, parent, fun, argnum, tangent_in, contribution) -> None:
        self.node_id(parent)  # the parent existed first: give it the smaller id
        self._emit(
            "jvp", self.node_id(node), _name(fun), argnum, contribution,
            tangent_in=_snapshot(tangent_in),
        )

    def on_stage(self, kind: str, stage: str, x: Any, **detail) -> None:
        self._emit(kind, None, None, None, x, stage=stage, **detail)


@contextmanager
def record() -> Iterator[Recording]:
    """Record every engine event inside the block: `with record() as rec: ...; rec.events`."""
    global active
    previous, active = active, Recording()
    try:
        yield active
    finally:
        active = previous


# ---------------------------------------------------------------------------------------------
# The traced graph, for diagrams
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphNode:
    id: int
    primitive: str
    value: Any
    shape: tuple
    parents: tuple[int, ...]
    parent_argnums: tuple[int, ...]
    is_root: bool


@dataclass(frozen=True)
class Graph:
    nodes: list[GraphNode]
    output: int | None


def trace_graph(fun: Callable, *args: Any, argnum: int = 0) -> Graph:
    """Trace `fun(*args)` with respect to `args[argnum]` and return its graph, root first."""
    from .core import VJPNode
    from .tracer import toposort, trace

    def unary(x):
        return fun(*args[:argnum], x, *args[argnum + 1 :])

    root = VJPNode.new_root(args[argnum])
    # Nodes keep shapes, not values: the values come from the forward events of a recording.
    with record() as recording:
        _, end_node = trace(root, unary, args[argnum])
    if end_node is None:
        return Graph([GraphNode(0, "root", _snapshot(args[argnum]),
                                np.shape(args[argnum]), (), (), True)], None)
    values = {event.node: event.value for event in recording.of_kind("forward")}
    values[recording.node_id(root)] = _snapshot(args[argnum])
    order = list(reversed(toposort(end_node)))
    ids = {id(node): index for index, node in enumerate(order)}
    nodes = [
        GraphNode(
            ids[id(node)], _name(node.fun), values[recording.node_id(node)], node.shape,
            tuple(ids[id(parent)] for parent in node.parents), node.parent_argnums,
            node.fun is None,
        )
        for node in order
    ]
    return Graph(nodes, ids[id(end_node)])
