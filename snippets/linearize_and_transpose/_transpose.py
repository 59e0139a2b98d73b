"""Linearize a function with the engine's own JVP rules, then transpose its tangent program.

`linearize(f, x)` runs forward mode with the primal `x` fixed and the tangent itself boxed in an
outer trace of `LinearNode`s: every primitive a JVP rule applies to the tangent leaves a node
with its constant arguments. That list of nodes is the linear tangent program. `transpose`
walks it backwards with one transpose rule per linear primitive (`TRANSPOSE_RULES`), written in
plain NumPy, so the VJP it returns never calls one of the engine's VJP rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp
from ad_core.tracer import Node, getval, trace


class LinearNode(Node):
    """One line of the tangent program: `fun(*args, **kwargs)`, linear in `parent_argnums`."""

    __slots__ = ("args", "fun", "kwargs", "parent_argnums", "parents", "shape")

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.fun, self.args, self.kwargs = fun, list(args), kwargs
        self.parent_argnums, self.parents = parent_argnums, parents
        self.shape = np.shape(value)

    def initialize_root(self, value):
        self.fun, self.args, self.kwargs = None, [], {}
        self.parent_argnums, self.parents = (), ()
        self.shape = np.shape(value)


def _topological(end: LinearNode) -> list[LinearNode]:
    order, seen = [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in node.parents:
            visit(parent)
        order.append(node)

    visit(end)
    return order


# --8<-- [start:linearize]
def linearize(fun: Callable, x: np.ndarray) -> tuple[Any, list[LinearNode], LinearNode, LinearNode]:
    """The value `fun(x)` and its tangent program: (value, nodes in forward order, root, output)."""
    root = LinearNode.new_root(x)
    primal = {}

    def tangent_of(v):
        primal["value"], tangent = make_jvp(fun)(x)(v)
        return tangent

    _, end = trace(root, tangent_of, np.zeros_like(x))
    if end is None:
        raise ValueError(f"linearize: the tangent of {fun.__name__} does not depend on its input")
    return primal["value"], _topological(end), root, end
# --8<-- [end:linearize]


# --8<-- [start:sum_to_shape]
def sum_to_shape(ct: np.ndarray, shape: tuple) -> np.ndarray:
    """Transpose of broadcasting `shape` up to `ct.shape`: sum the copies back."""
    while ct.ndim > len(shape):
        ct = ct.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and ct.shape[axis] != 1:
            ct = ct.sum(axis=axis, keepdims=True)
    return ct
# --8<-- [end:sum_to_shape]


def _other(args: list, argnum: int) -> np.ndarray:
    return getval(args[1 - argnum])


def _matmul_t(ct, argnum, args, kwargs, in_shape):
    if max(np.ndim(args[0]), np.ndim(args[1])) > 2:
        shapes = [np.shape(getval(v)) for v in args]
        raise NotImplementedError(f"matmul transpose: only 1-D and 2-D arguments, got shapes {shapes}")
    a, b = (np.atleast_2d(getval(v)) for v in args)
    ct2 = ct.reshape(a.shape[0] if np.ndim(args[0]) == 2 else 1, -1)
    if np.ndim(args[1]) == 1:
        ct2, b = ct2.reshape(-1, 1), b.reshape(-1, 1)
    out = ct2 @ b.T if argnum == 0 else a.T @ ct2
    return out.reshape(in_shape)


def _sum_t(ct, argnum, args, kwargs, in_shape):
    axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
    if axis is not None and not kwargs.get("keepdims", False):
        ct = np.expand_dims(ct, axis)
    return np.broadcast_to(ct, in_shape).copy()


def _transpose_t(ct, argnum, args, kwargs, in_shape):
    axes = kwargs.get("axes", args[1] if len(args) > 1 else None)
    return ct.transpose(None if axes is None else np.argsort(axes))


def _repeat_t(ct, argnum, args, kwargs, in_shape):
    repeats = args[1] if len(args) > 1 else kwargs["repeats"]
    axis = kwargs.get("axis", args[2] if len(args) > 2 else None)
    if axis is None or not isinstance(repeats, int):
        raise NotImplementedError(
            f"repeat transpose: only an int `repeats` along one axis, got repeats={repeats!r}, axis={axis!r}")
    axis = axis % ct.ndim
    grouped = ct.reshape((*ct.shape[:axis], in_shape[axis], repeats, *ct.shape[axis + 1:]))
    return grouped.sum(axis=axis + 1)


def _getitem_t(ct, argnum, args, kwargs, in_shape):
    out = np.zeros(in_shape, dtype=ct.dtype)
    np.add.at(out, args[1], ct)
    return out


def _concatenate_t(ct, argnum, args, kwargs, in_shape):
    axis, *arrays = args
    ends = np.cumsum([np.shape(a)[axis] for a in arrays])
    return np.split(ct, ends[:-1], axis=axis)[argnum - 1]


# --8<-- [start:rules]
# One transpose rule per linear primitive: (cotangent of the output, argnum, the node's
# arguments, its keyword arguments, the shape of the linear input) -> cotangent of that input.
TRANSPOSE_RULES: dict[Callable, Callable] = {
    anp.negative: lambda ct, i, args, kw, shape: -ct,
    anp.add: lambda ct, i, args, kw, shape: sum_to_shape(ct, shape),
    anp.multiply: lambda ct, i, args, kw, shape: sum_to_shape(ct * _other(args, i), shape),
    anp.true_divide: lambda ct, i, args, kw, shape: sum_to_shape(ct / getval(args[1]), shape),
    anp.reshape: lambda ct, i, args, kw, shape: ct.reshape(shape),
    anp.expand_dims: lambda ct, i, args, kw, shape: ct.reshape(shape),
    anp.broadcast_to: lambda ct, i, args, kw, shape: sum_to_shape(ct, shape),
    anp.sum: _sum_t,
    anp.transpose: _transpose_t,
    anp.repeat: _repeat_t,
    anp.dot: _matmul_t,
    anp.matmul: _matmul_t,
    anp.array_getitem: _getitem_t,
    anp.concatenate_args: _concatenate_t,
}
# --8<-- [end:rules]


# --8<-- [start:transpose]
def transpose(nodes: list[LinearNode], root: LinearNode, end: LinearNode, ct: np.ndarray) -> np.ndarray:
    """Run the tangent program backwards: the cotangent of the root for the output's `ct`."""
    cotangents = {id(end): np.asarray(ct, dtype=float)}
    for node in reversed(nodes):
        if node is root:
            continue
        ct_out = cotangents.pop(id(node), None)
        if ct_out is None:
            continue
        rule = TRANSPOSE_RULES.get(node.fun)
        if rule is None:
            raise NotImplementedError(f"transpose: no transpose rule for {node.fun.__name__}")
        for argnum, parent in zip(node.parent_argnums, node.parents, strict=True):
            contribution = rule(ct_out, argnum, node.args, node.kwargs, parent.shape)
            assert contribution.shape == parent.shape, (node.fun.__name__, contribution.shape, parent.shape)
            previous = cotangents.get(id(parent))
            cotangents[id(parent)] = contribution if previous is None else previous + contribution
    return cotangents.get(id(root), np.zeros(root.shape))
# --8<-- [end:transpose]


def derived_vjp(fun: Callable, x: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """`u -> J(x)^T u`, made from the JVP rules and `TRANSPOSE_RULES` only."""
    _, nodes, root, end = linearize(fun, x)
    return lambda u: transpose(nodes, root, end, u)
