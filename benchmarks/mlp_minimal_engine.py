"""The smallest engine with the structure the engine issue prescribes, running the same model.

The issue asks ad_core for these layers: boxes that wrap values, a node per primitive call that
holds its parents and one VJP closure per traced parent (built by a curried rule,
`maker(ans, *args) -> (g -> contribution)`), an iterative toposort, and a backward pass that adds
fan-out contributions. This file has exactly that (the toposort is ad_core's own, which asks
nothing of a node but its `parents`) and nothing else:

- one trace level (no grad of grad), no recorder hooks, no shape check on contributions;
- no dtype or argument checks, no containers (each parameter is its own root), no fallbacks;
- rules written for this model only, in plain NumPy (not traced again), each as cheap as the
  no-engine row's VJPs: no rule does more arithmetic than `mlp_unfused.py`.

So its time estimates the floor for an engine of that structure on this machine and this Python:
the price of the structure itself, with nothing else around it. The benchmark prints it as a
column next to ad_core, and the README explains how to read the two together.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
from mlp_model import make_loss

from ad_core.tracer import toposort


class Node:
    """Parents, and the VJP closure for each of them, in the same order."""

    __slots__ = ("parents", "vjps")

    def __init__(self, parents: tuple, vjps: tuple) -> None:
        self.parents = parents
        self.vjps = vjps


class Box:
    """A traced array: its value and its node. Operators go through the primitives below."""

    __slots__ = ("node", "value")

    def __init__(self, value: np.ndarray, node: Node) -> None:
        self.value = value
        self.node = node

    def __add__(self, other: Any) -> Box:
        return add(self, other)

    def __radd__(self, other: Any) -> Box:
        return add(other, self)

    def __sub__(self, other: Any) -> Box:
        return subtract(self, other)

    def __rsub__(self, other: Any) -> Box:
        return subtract(other, self)

    def __mul__(self, other: Any) -> Box:
        return multiply(self, other)

    def __rmul__(self, other: Any) -> Box:
        return multiply(other, self)

    def __truediv__(self, other: Any) -> Box:
        return divide(self, other)

    def __neg__(self) -> Box:
        return negative(self)

    def __getitem__(self, index: Any) -> Box:
        return getitem(self, index)


def primitive(raw: Callable, *makers: Callable) -> Callable:
    """Wrap `raw`: on boxed arguments, call it on the values and record a node.

    One and two positional arguments, the model's common calls, take a path without loops."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 2 and not kwargs:
            x, y = args
            if type(x) is Box:
                x = x.value
                if type(y) is Box:
                    y = y.value
                    ans = raw(x, y)
                    node = Node((args[0].node, args[1].node), (makers[0](ans, x, y), makers[1](ans, x, y)))
                    return Box(ans, node)
                ans = raw(x, y)
                return Box(ans, Node((args[0].node,), (makers[0](ans, x, y),)))
            if type(y) is Box:
                y = y.value
                ans = raw(x, y)
                return Box(ans, Node((args[1].node,), (makers[1](ans, x, y),)))
            return raw(x, y)
        if len(args) == 1 and type(args[0]) is Box:
            x = args[0].value
            ans = raw(x, **kwargs)
            return Box(ans, Node((args[0].node,), (makers[0](ans, x, **kwargs),)))
        parents = None
        for argnum, arg in enumerate(args):
            if type(arg) is Box:
                if parents is None:
                    values, parents, argnums = list(args), [], []
                parents.append(arg.node)
                argnums.append(argnum)
                values[argnum] = arg.value
        if parents is None:
            return raw(*args, **kwargs)
        ans = raw(*values, **kwargs)
        vjps = tuple(makers[argnum](ans, *values, **kwargs) for argnum in argnums)
        return Box(ans, Node(tuple(parents), vjps))

    return wrapped


def backward_pass(g: Any, end: Node) -> dict[Node, Any]:
    """Every node's cotangent (the roots' are the gradients), fan-out contributions added."""
    cotangents = {end: g}
    for node in toposort(end):
        g = cotangents[node]
        for parent, vjp in zip(node.parents, node.vjps, strict=True):
            contribution = vjp(g)
            previous = cotangents.get(parent)
            cotangents[parent] = contribution if previous is None else previous + contribution
    return cotangents


# Rules: curried, as in HIPS/autograd and ad_core; only what this model calls.


def reduce_to(shape: tuple, f: Callable) -> Callable:
    """`f`, then sum the broadcast axes away so the result has `shape`."""
    ndim = len(shape)

    def vjp(g: np.ndarray) -> np.ndarray:
        result = f(g)
        if result.shape == shape:
            return result
        result = result.sum(axis=tuple(range(result.ndim - ndim))) if result.ndim > ndim else result
        axes = tuple(axis for axis, size in enumerate(shape) if size == 1 and result.shape[axis] != 1)
        return result.sum(axis=axes, keepdims=True) if axes else result

    return vjp


def reduce_then(shape: tuple, f: Callable, after: Callable) -> Callable:
    """`reduce_to`, then `after` on the small result: a factor of the target costs less there."""
    reduce = reduce_to(shape, f)
    return lambda g: after(reduce(g))


def shape_of(x: Any) -> tuple:
    return getattr(x, "shape", ())


def sum_raw(a: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.add.reduce(a, axis, None, None, keepdims)


def mean_raw(a: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.add.reduce(a, axis, None, None, keepdims) / (a.size if axis is None else a.shape[axis])


def max_raw(a: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.maximum.reduce(a, axis, None, None, keepdims)


def var_raw(a: np.ndarray, axis: int, ddof: int = 0, keepdims: bool = False) -> np.ndarray:
    centred = a - np.add.reduce(a, axis, None, None, True) / a.shape[axis]
    centred *= centred
    return np.add.reduce(centred, axis, None, None, keepdims) / (a.shape[axis] - ddof)


def spread_back(ans: Any, a: np.ndarray, axis: Any = None, keepdims: bool = False) -> Callable:
    """The VJP of a sum: copy the cotangent back along the reduced axes."""
    shape = a.shape
    if keepdims or axis is None:
        return lambda g: np.broadcast_to(g, shape)
    return lambda g: np.broadcast_to(np.expand_dims(g, axis), shape)


def mean_back(ans: Any, a: np.ndarray, axis: Any = None, keepdims: bool = False) -> Callable:
    count = a.size if axis is None else a.shape[axis]
    spread = spread_back(ans, a, axis, keepdims)
    return lambda g: spread(g / count)


def max_back(ans: np.ndarray, a: np.ndarray, axis: Any = None, keepdims: bool = False) -> Callable:
    def vjp(g: np.ndarray) -> np.ndarray:
        winners = a == ans
        return winners * (g / winners.sum(axis, keepdims=True))

    return vjp


def var_back(ans: Any, a: np.ndarray, axis: int, ddof: int = 0, keepdims: bool = False) -> Callable:
    def vjp(g: np.ndarray) -> np.ndarray:
        centred = a - a.mean(axis, keepdims=True)
        centred *= g * (2.0 / (a.shape[axis] - ddof))
        return centred

    return vjp


def take_back(ans: Any, a: np.ndarray, index: Any) -> Callable:
    def vjp(g: np.ndarray) -> np.ndarray:
        result = np.zeros(a.shape)
        np.add.at(result, index, g)
        return result

    return vjp


add = primitive(
    np.add,
    lambda ans, x, y: reduce_to(shape_of(x), lambda g: g),
    lambda ans, x, y: reduce_to(shape_of(y), lambda g: g),
)
subtract = primitive(
    np.subtract,
    lambda ans, x, y: reduce_to(shape_of(x), lambda g: g),
    lambda ans, x, y: reduce_then(shape_of(y), lambda g: g, lambda r: -r),
)
multiply = primitive(
    np.multiply,
    lambda ans, x, y: reduce_to(shape_of(x), lambda g: y * g),
    lambda ans, x, y: reduce_to(shape_of(y), lambda g: x * g),
)
divide = primitive(
    np.true_divide,
    lambda ans, x, y: reduce_to(shape_of(x), lambda g: g / y),
    lambda ans, x, y: reduce_then(shape_of(y), lambda g: g * ans, lambda r: -r / y),
)
negative = primitive(np.negative, lambda ans, x: lambda g: -g)
tanh = primitive(np.tanh, lambda ans, x: lambda g: g * (1.0 - ans * ans))
exp = primitive(np.exp, lambda ans, x: lambda g: g * ans)
log = primitive(np.log, lambda ans, x: lambda g: g / x)
sqrt = primitive(np.sqrt, lambda ans, x: lambda g: g * 0.5 / ans)
dot = primitive(np.dot, lambda ans, a, b: lambda g: g @ b.T, lambda ans, a, b: lambda g: a.T @ g)
reshape = primitive(np.reshape, lambda ans, a, shape: lambda g: g.reshape(a.shape))
getitem = primitive(lambda a, index: a[index], take_back)
minimal_numpy = SimpleNamespace(
    add=add, subtract=subtract, multiply=multiply, tanh=tanh, exp=exp, log=log, sqrt=sqrt, dot=dot,
    reshape=reshape, sum=primitive(sum_raw, spread_back), mean=primitive(mean_raw, mean_back),
    max=primitive(max_raw, max_back), var=primitive(var_raw, var_back),
)


def make_step(params: list[np.ndarray], windows: np.ndarray, targets: np.ndarray) -> Callable:
    """step() -> (loss, gradients in PARAM_NAMES order), tracing mlp_model's loss afresh each time."""
    loss = make_loss(minimal_numpy)

    def step() -> tuple[float, list[np.ndarray]]:
        roots = [Node((), ()) for _ in params]
        end = loss([Box(p, root) for p, root in zip(params, roots, strict=True)], windows, targets)
        cotangents = backward_pass(1.0, end.node)
        return float(end.value), [cotangents[root] for root in roots]

    return step
