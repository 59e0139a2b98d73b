"""The recorder: what the engine really does, captured while it does it, from the outside.

The engine contains no recording code. Inside a `record()` block the recorder watches it the
way a profiler does: Python reports every function call and return to it (`sys.setprofile`),
and it keeps those of the few engine functions it knows by their code object:

- a node's constructor returning (`VJPNode.__init__`, `JVPNode.__init__`): a *forward* event,
  and for forward mode the *jvp* events of the tangents the node just computed;
- `backward_pass` starting and returning, and, inside it, each call of a node's VJP (when a
  pass starts, the recorder wraps the VJPs of the nodes it will visit, much as HIPS/autograd's
  `misc/tracers.py` subclasses a node) and each `add_cotangents` it makes: *visit*, *vjp* and
  *accumulate* events;
- `unbroadcast` and `broadcast` running, and the primitive calls they make (`anp.sum`,
  `anp.real`, `anp.expand_dims`, `anp.repeat`, `anp.add`), seen where the primitive returns:
  one event per stage.

Every value stored is a copy of the object the engine computed at that moment, never a
recomputation. Outside a `record()` block nothing is installed, so recording costs nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import core
from .numpy import jvps as _jvps
from .numpy import vjps as _vjps
from .numpy import wrapper as _anp
from .tracer import getval, toposort, trace

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

    # What the watcher saw, as events ------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# The watcher: a profile function that turns calls and returns of engine functions into events
# ---------------------------------------------------------------------------------------------

_VJP_NODE_INIT = core.VJPNode.__init__.__code__
_JVP_NODE_INIT = core.JVPNode.__init__.__code__
_BACKWARD_PASS = core.backward_pass.__code__
_ADD_COTANGENTS = core.add_cotangents.__code__
_UNBROADCAST = _vjps.unbroadcast.__code__
_BROADCAST = _jvps.broadcast.__code__
_PRIMITIVE_CALL = _anp.sum.__code__  # the wrapper `tracer.primitive` puts around every primitive

# Each stage of `unbroadcast` and `broadcast` is one primitive call; its name and keywords say
# which stage it is.
_STAGES = {
    ("unbroadcast", "sum"): lambda args, kwargs: (
        ("sum_keepdims" if kwargs.get("keepdims") else "sum_leading"), {"axis": kwargs.get("axis")}),
    ("unbroadcast", "real"): lambda args, kwargs: ("real", {}),
    ("broadcast", "expand_dims"): lambda args, kwargs: (
        "expand_dims", {"axis": kwargs["axis"] if "axis" in kwargs else args[1]}),
    ("broadcast", "repeat"): lambda args, kwargs: ("repeat", {"axis": kwargs.get("axis")}),
    ("broadcast", "add"): lambda args, kwargs: ("complex", {}),
}


class _BackwardPass:
    """What the watcher keeps about one running `backward_pass`."""

    __slots__ = ("contributed", "frame", "pending", "visited")

    def __init__(self, frame) -> None:
        self.frame = frame
        self.visited: set[int] = set()
        self.contributed: set[int] = set()
        self.pending = None  # (parent, contribution) of the VJP that returned last


class _Stages:
    """What the watcher keeps about one running `unbroadcast` or `broadcast`."""

    __slots__ = ("detail", "entered", "frame", "kind", "x")

    def __init__(self, kind, frame, x, detail) -> None:
        self.kind, self.frame, self.x, self.detail = kind, frame, x, detail
        self.entered = False


class _Watcher:
    def __init__(self) -> None:
        self.passes: list[_BackwardPass] = []
        self.stages: list[_Stages] = []
        self.tangent_sums: dict[int, list] = {}  # JVPNode frame id -> add_cotangents calls
        self.operands: dict[int, tuple] = {}  # add_cotangents frame id -> its (x, y)

    def __call__(self, frame, event, arg) -> None:
        recording = active
        if recording is None or event not in ("call", "return"):
            return
        code = frame.f_code
        if event == "call":
            if code is _BACKWARD_PASS:
                self.passes.append(_BackwardPass(frame))
                self._watch_vjps(frame.f_locals["end_node"])
            elif code is _UNBROADCAST or code is _BROADCAST:
                self._enter_stages(recording, frame, code)
            elif self.stages and frame.f_back is self.stages[-1].frame:
                self._announce_entry(recording, self.stages[-1])
            elif code is _JVP_NODE_INIT:
                self.tangent_sums[id(frame)] = []
            elif code is _ADD_COTANGENTS:
                local = frame.f_locals
                self.operands[id(frame)] = (local["x"], local["y"])
            return
        if code is _PRIMITIVE_CALL:
            if self.stages and frame.f_back is self.stages[-1].frame:
                self._stage(recording, self.stages[-1], frame, arg)
        elif code is _ADD_COTANGENTS:
            self._added(recording, frame, self.operands.pop(id(frame), None), arg)
        elif code is _VJP_NODE_INIT:
            self._made_vjp_node(recording, frame.f_locals)
        elif code is _JVP_NODE_INIT:
            self._made_jvp_node(recording, frame, self.tangent_sums.pop(id(frame), []))
        elif code is _BACKWARD_PASS:
            finished = self.passes.pop()
            local = frame.f_locals
            root = local.get("node")
            # Returning normally, the pass has emptied `outgrads`; the last node it took is the
            # root, whose cotangent it returns.
            if root is not None and not local["outgrads"] and id(root) not in finished.visited:
                recording.on_visit(root, arg)
        elif (code is _UNBROADCAST or code is _BROADCAST) and self.stages:
            stages = self.stages.pop()
            if stages.entered and stages.kind == "unbroadcast":  # `broadcast` reports no return
                recording.on_stage(stages.kind, "return", arg, **stages.detail)

    # forward ----------------------------------------------------------------------------------

    def _made_vjp_node(self, recording, local) -> None:
        node = local["self"]
        if getattr(node, "vjps", None) is None:  # the constructor raised
            return
        recording.on_forward(node, local["fun"], local["value"], local["parents"],
                             local["parent_argnums"])

    def _made_jvp_node(self, recording, frame, sums) -> None:
        local = frame.f_locals
        node, parents = local["self"], local["parents"]
        if getattr(node, "g", None) is None:  # the constructor raised
            return
        # One parent: the node's tangent is that parent's contribution. Several: the engine
        # added them one by one, and each `add_cotangents(tangent, contribution)` was seen.
        contributions = [node.g] if not sums else [sums[0][0], *(added for _, added in sums)]
        for parent, argnum, contribution in zip(parents, local["parent_argnums"], contributions,
                                                strict=True):
            recording.on_jvp(node, parent, local["fun"], argnum, parent.g, contribution)
        recording.on_forward(node, local["fun"], local["value"], parents, local["parent_argnums"])

    # backward ---------------------------------------------------------------------------------

    def _watch_vjps(self, end_node) -> None:
        """Wrap the VJPs of every node this pass will visit (once: a wrapped VJP stays wrapped,
        and passes its calls through when nothing records)."""
        for node in toposort(end_node):
            if node.vjps and not getattr(node.vjps[0], "watched", False):
                node.vjps = tuple(
                    self._watched_vjp(node, parent, argnum, vjp) for parent, argnum, vjp
                    in zip(node.parents, node.parent_argnums, node.vjps, strict=True)
                )

    def _watched_vjp(self, node, parent, argnum, vjp) -> Callable:
        watcher = self

        def watched(g):
            recording = active
            this_pass = watcher.passes[-1] if watcher.passes else None
            if recording is None or this_pass is None:
                return vjp(g)
            if id(node) not in this_pass.visited:
                this_pass.visited.add(id(node))
                recording.on_visit(node, g)
            contribution = vjp(g)
            recording.on_vjp(node, argnum, g, contribution)
            if id(parent) in this_pass.contributed:
                this_pass.pending = (parent, contribution)  # the pass adds it next
            else:
                this_pass.contributed.add(id(parent))
                recording.on_accumulate(parent, None, contribution, contribution)
            return contribution

        watched.__wrapped__ = vjp
        watched.watched = True
        return watched

    def _added(self, recording, frame, operands, total) -> None:
        caller = frame.f_back
        if operands is None:
            return
        if caller.f_code is _BACKWARD_PASS and self.passes and self.passes[-1].pending:
            parent, contribution = self.passes[-1].pending
            self.passes[-1].pending = None
            recording.on_accumulate(parent, operands[0], contribution, total)
        elif caller.f_code is _JVP_NODE_INIT and id(caller) in self.tangent_sums:
            self.tangent_sums[id(caller)].append(operands)

    # unbroadcast and broadcast ----------------------------------------------------------------

    def _enter_stages(self, recording, frame, code) -> None:
        local = frame.f_locals
        target_shape, target_ndim, _dtype, _iscomplex = local["target_meta"]
        kind = "unbroadcast" if code is _UNBROADCAST else "broadcast"
        detail = ({"target_shape": target_shape, "target_ndim": target_ndim}
                  if kind == "unbroadcast" else {"target_shape": target_shape})
        stages = _Stages(kind, frame, local["x"], detail)
        self.stages.append(stages)
        if kind == "broadcast":  # `unbroadcast` enters only past its fast path (below)
            self._announce_entry(recording, stages)

    def _announce_entry(self, recording, stages) -> None:
        # `unbroadcast`'s fast path returns before calling anything; its first call is the
        # first sign that it has work to do.
        if not stages.entered:
            stages.entered = True
            recording.on_stage(stages.kind, "enter", stages.x, **stages.detail)

    def _stage(self, recording, stages, frame, result) -> None:
        local = frame.f_locals
        name = local["f_raw"].__name__
        describe = _STAGES.get((stages.kind, name))
        stage, detail = describe(local["args"], local["kwargs"]) if describe else (name, {})
        recording.on_stage(stages.kind, stage, result, **detail, **stages.detail)


_watcher: _Watcher | None = None
_previous_profile: Any = None


@contextmanager
def record() -> Iterator[Recording]:
    """Record every engine event inside the block: `with record() as rec: ...; rec.events`."""
    global active, _watcher, _previous_profile
    previous, active = active, Recording()
    outermost = _watcher is None
    if outermost:
        _watcher, _previous_profile = _Watcher(), sys.getprofile()
        sys.setprofile(_watcher)
    try:
        yield active
    finally:
        active = previous
        if outermost:
            sys.setprofile(_previous_profile)
            _watcher = _previous_profile = None


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

    def unary(x):
        return fun(*args[:argnum], x, *args[argnum + 1 :])

    root = core.VJPNode.new_root(args[argnum])
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
