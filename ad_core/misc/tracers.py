"""`const_graph`: trace a function once, then replay the recorded primitives on new inputs.

    >>> import ad_core.numpy as anp
    >>> fast = const_graph(lambda x, y: anp.sin(x) * y)
    >>> print(round(float(fast(0.5, 2.0)), 6), round(float(fast(0.5, 3.0)), 6))
    0.958851 1.438277

As `autograd.misc.const_graph`: the first call traces (Python control flow runs once, for
those inputs); every later call only evaluates the primitives of that trace, in order. Extra
`args` and `kwargs` are bound first, as with `functools.partial`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..tracer import Node, toposort, trace
from ..wrap_util import wraps


class ConstGraphNode(Node):
    """A node that keeps how to recompute its value from its parents' values."""

    __slots__ = ("parents", "partial_fun")

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        args = list(args)
        for argnum in parent_argnums:
            args[argnum] = None  # the traced inputs are filled in on replay; drop the values

        def partial_fun(parent_values):
            full = list(args)
            for argnum, parent_value in zip(parent_argnums, parent_values, strict=True):
                full[argnum] = parent_value
            return fun(*full, **kwargs)

        self.parents = parents
        self.partial_fun = partial_fun

    def initialize_root(self):
        self.parents = ()


def const_graph_unary(fun: Callable) -> Callable:
    graph: list = []
    pending = [fun]  # released after tracing, since it may hold bound arguments

    def maybe_cached_fun(x: Any) -> Any:
        if graph:
            nodes = graph[0]
            values = {nodes[0]: x}
            for node in nodes[1:]:
                values[node] = node.partial_fun([values[parent] for parent in node.parents])
            return values[nodes[-1]]
        end_value, end_node = trace(ConstGraphNode.new_root(), pending.pop(), x)
        if end_node is None:
            raise ValueError("const_graph: the output does not depend on the input")
        graph.append(list(toposort(end_node))[::-1])
        return end_value

    return maybe_cached_fun


def const_graph(fun: Callable, *args: Any, **kwargs: Any) -> Callable:
    """`fun` with `args` and `kwargs` bound, traced on its first call and replayed after."""
    partial_fun = partial(fun, *args, **kwargs)
    cached = const_graph_unary(lambda args: partial_fun(*args))

    @wraps(fun)
    def replayed(*args: Any) -> Any:
        return cached(args)

    return replayed
