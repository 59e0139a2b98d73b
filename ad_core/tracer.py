"""Layer 1, tracing: wrap values in boxes so that every primitive call leaves a node behind.

A *trace* is one differentiation in progress. Each trace has an integer level; nested traces
(grad of grad) get higher levels, and a primitive only unboxes the arguments of the highest
level it sees, so outer traces keep recording while an inner one runs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar


class Node:
    """A vertex of the computation graph. Subclasses say what is stored for each mode."""

    __slots__ = ()

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        raise NotImplementedError

    def initialize_root(self, *args, **kwargs):
        raise NotImplementedError

    @classmethod
    def new_root(cls, *args, **kwargs) -> Node:
        root = cls.__new__(cls)
        root.initialize_root(*args, **kwargs)
        return root


class TraceStack:
    """Hands out increasing trace levels; a counter, so nested traces are ordered."""

    def __init__(self) -> None:
        self.top = -1

    @contextmanager
    def new_trace(self) -> Iterator[int]:
        self.top += 1
        try:
            yield self.top
        finally:
            self.top -= 1


trace_stack = TraceStack()


class Box:
    """A value being traced: the raw value, the trace level it belongs to, and its graph node."""

    __slots__ = ("_node", "_trace", "_value")
    type_mappings: ClassVar[dict[type, type[Box]]] = {}
    types: ClassVar[set[type[Box]]] = set()

    def __init__(self, value: Any, trace: int, node: Node) -> None:
        self._value = value
        self._trace = trace
        self._node = node

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._value!r}, trace={self._trace})"

    @staticmethod
    def is_differentiable(value: Any) -> bool:
        return True

    @classmethod
    def register(cls, value_type: type) -> None:
        Box.types.add(cls)
        Box.type_mappings[value_type] = cls
        Box.type_mappings[cls] = cls


def new_box(value: Any, trace: int, node: Node) -> Any:
    """Box a primitive's output; values with no derivative (integers, booleans) stay plain."""
    box_type = Box.type_mappings.get(type(value))
    if box_type is not None:
        return box_type(value, trace, node) if box_type.is_differentiable(value) else value
    if isinstance(value, bool | int | str | type(None)):
        return value
    raise TypeError(
        f"ad_core cannot trace a value of type {type(value).__name__} returned by "
        f"{getattr(node.fun, '__name__', 'a function')}: only floats, complex numbers and NumPy "
        "float/complex arrays carry derivatives"
    )


def isbox(x: Any) -> bool:
    return isinstance(x, Box)


def getval(x: Any) -> Any:
    """The raw value inside any number of boxes."""
    while isinstance(x, Box):
        x = x._value
    return x


def trace(start_node: Node, fun: Callable, x: Any) -> tuple[Any, Node | None]:
    """Run `fun` on a boxed `x` and return the raw output value and the output's node."""
    with trace_stack.new_trace() as level:
        start_box = new_box(x, level, start_node)
        end_box = fun(start_box)
        if isinstance(end_box, Box) and end_box._trace == start_box._trace:
            return end_box._value, end_box._node
        warnings.warn(
            "ad_core: the output of the function does not depend on the input being "
            "differentiated; its derivative is zero",
            stacklevel=3,
        )
        return end_box, None


def primitive(f_raw: Callable) -> Callable:
    """Wrap `f_raw` so that a call on boxed arguments records a node and returns a box.

    On plain arguments the wrapper calls `f_raw` directly; the rules registered with
    `defvjp` / `defjvp` are looked up on the wrapper (`f_wrapped.vjps`, `f_wrapped.jvps`).
    Only boxes of the innermost trace (the highest level) are opened: boxes of outer traces
    stay boxed, so the outer traces record this call when it runs again on the values.
    """

    def f_wrapped(*args, **kwargs):
        level = -1
        parents = None
        for argnum, arg in enumerate(args):
            if isinstance(arg, Box):
                if arg._trace > level:  # the first box, or one of a newer trace: start over
                    level = arg._trace
                    argvals = list(args)
                    parents = (arg._node,)
                    parent_argnums = (argnum,)
                    argvals[argnum] = arg._value
                elif arg._trace == level:
                    argvals[argnum] = arg._value
                    parents += (arg._node,)
                    parent_argnums += (argnum,)
        if parents is None:
            return f_raw(*args, **kwargs)
        # Inside a nested trace (level > 0) a value may itself be a box of an outer trace, or
        # an argument may be one: calling the wrapper again lets the outer trace record this too.
        ans = (f_wrapped if level else f_raw)(*argvals, **kwargs)
        node = type(parents[0])(ans, f_wrapped, argvals, kwargs, parent_argnums, parents)
        box_type = Box.type_mappings.get(type(ans))
        if box_type is not None and box_type.is_differentiable(ans):
            return box_type(ans, level, node)
        return new_box(ans, level, node)

    f_wrapped.fun = f_raw
    f_wrapped.vjps = {}
    f_wrapped.jvps = {}
    f_wrapped.is_primitive = True
    f_wrapped.__name__ = getattr(f_raw, "__name__", repr(f_raw))
    f_wrapped.__qualname__ = getattr(f_raw, "__qualname__", f_wrapped.__name__)
    f_wrapped.__doc__ = getattr(f_raw, "__doc__", None)
    f_wrapped.__wrapped__ = f_raw
    return f_wrapped


class _RuleTable:
    """`primitive_vjps` / `primitive_jvps` (importable from `core`, as from `autograd.core`): a
    view of the rules each primitive keeps on itself (`fun.vjps`, and `fun.vjp_every_argnum` under the
    key `"every_argnum"`), keyed by the primitive.

    `table.pop(fun, None)` takes a primitive's rules away (differentiating through it then
    raises NotImplementedError); `table[fun] = rules` puts them back."""

    def __init__(self, mode: str) -> None:
        self.mode = mode  # "vjp" or "jvp"

    def __getitem__(self, fun: Callable) -> dict:
        rules = getattr(fun, f"{self.mode}s", None)
        if not isinstance(rules, dict):
            raise KeyError(f"{getattr(fun, '__name__', fun)!r} is not an ad_core primitive")
        every = getattr(fun, f"{self.mode}_every_argnum", None)
        return {**rules, "every_argnum": every} if every is not None else dict(rules)

    def __contains__(self, fun: Callable) -> bool:
        return bool(getattr(fun, f"{self.mode}s", None) or getattr(fun, f"{self.mode}_every_argnum", None))

    def __setitem__(self, fun: Callable, rules: dict) -> None:
        rules = dict(rules)
        if "every_argnum" in rules:
            setattr(fun, f"{self.mode}_every_argnum", rules.pop("every_argnum"))
        getattr(fun, f"{self.mode}s").update(rules)

    def pop(self, fun: Callable, *default: Any) -> dict:
        if fun not in self:
            if default:
                return default[0]
            raise KeyError(getattr(fun, "__name__", fun))
        taken = self[fun]
        getattr(fun, f"{self.mode}s").clear()
        if hasattr(fun, f"{self.mode}_every_argnum"):
            delattr(fun, f"{self.mode}_every_argnum")
        return taken


primitive_vjps = _RuleTable("vjp")
primitive_jvps = _RuleTable("jvp")


def notrace_primitive(f_raw: Callable) -> Callable:
    """Wrap a function whose output carries no derivative (shapes, comparisons, argmax)."""

    def f_wrapped(*args, **kwargs):
        for arg in args:
            if isinstance(arg, Box):
                return f_raw(*(getval(arg) for arg in args), **kwargs)
        return f_raw(*args, **kwargs)

    f_wrapped.fun = f_raw
    f_wrapped.is_primitive = False
    f_wrapped.__name__ = getattr(f_raw, "__name__", repr(f_raw))
    f_wrapped.__doc__ = getattr(f_raw, "__doc__", None)
    f_wrapped.__wrapped__ = f_raw
    return f_wrapped


def toposort(end_node: Node) -> list[Node]:
    """Nodes reachable from `end_node`, each before all of its parents (iterative, no recursion).

    A node is released only when every child that points at it has been emitted, so that all
    contributions to its cotangent have arrived when the backward pass reaches it.
    """
    child_counts: dict[Node, int] = {}
    stack = [end_node]
    while stack:
        node = stack.pop()
        if node in child_counts:
            child_counts[node] += 1
        else:
            child_counts[node] = 1
            stack.extend(node.parents)
    order: list[Node] = []
    ready = [end_node]
    while ready:
        node = ready.pop()
        order.append(node)
        for parent in node.parents:
            if child_counts[parent] == 1:
                ready.append(parent)
            else:
                child_counts[parent] -= 1
    return order
