"""Layer 2, the core: what a node stores in each mode, how cotangents and tangents flow.

Reverse mode: a `VJPNode` keeps one vector-Jacobian product per traced parent, and
`backward_pass` walks the graph from the output, adding every contribution into its parent.
Forward mode: a `JVPNode` computes its tangent as soon as it is created, from its parents'
tangents. The rules themselves (`defvjp`, `defjvp`) are registered on primitives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import inspect as _inspect
from .tracer import Box, Node, getval, toposort, trace
from .tracer import primitive_jvps as primitive_jvps  # autograd.core's names for the rule tables
from .tracer import primitive_vjps as primitive_vjps

# ---------------------------------------------------------------------------------------------
# Reverse mode
# ---------------------------------------------------------------------------------------------


class VJPNode(Node):
    """A reverse-mode node: its parents and, for each parent, a function from the node's
    cotangent to that parent's contribution.

    The node keeps its output's shape, not the output: a value stays alive only if a VJP
    closure needs it, so a value no rule reads is freed as soon as the forward pass is done
    with it."""

    __slots__ = ("fun", "parent_argnums", "parents", "shape", "vjps")

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.parents = parents
        self.parent_argnums = parent_argnums
        self.fun = fun
        self.shape = getattr(value, "shape", ())
        makers = fun.vjps
        if len(parent_argnums) == 1:  # the common case, without the loop
            argnum = parent_argnums[0]
            maker = makers.get(argnum) or _fallback_vjp_maker(fun, argnum)
            self.vjps = (maker(value, *args, **kwargs),)
            return
        vjps = []
        for argnum in parent_argnums:
            maker = makers.get(argnum) or _fallback_vjp_maker(fun, argnum)
            vjps.append(maker(value, *args, **kwargs))
        self.vjps = vjps

    def initialize_root(self, value=None):
        self.parents = ()
        self.parent_argnums = ()
        self.fun = None
        self.shape = getattr(value, "shape", ())
        self.vjps = ()

    def __repr__(self) -> str:
        name = "root" if self.fun is None else self.fun.__name__
        return f"VJPNode({name}, shape={self.shape}, parents={len(self.parents)})"


def _fallback_vjp_maker(fun: Callable, argnum: int) -> Callable:
    """The maker for an argument without a rule of its own: the one `defvjp_argnum` registered
    for every argument, if any, or one whose VJP raises (the value was computed; only
    differentiating through it fails)."""
    every_argnum = getattr(fun, "vjp_every_argnum", None)
    if every_argnum is None:
        return lambda ans, *args, **kwargs: _missing_rule("VJP", fun, argnum)
    maker = fun.vjps[argnum] = _bind_argnum(every_argnum, argnum)
    return maker


def _missing_rule(mode: str, fun: Callable, argnum: int) -> Callable:
    def raise_missing(*_args, **_kwargs):
        raise NotImplementedError(
            f"ad_core: no {mode} rule is defined for {fun.__name__} with respect to argument "
            f"{argnum}; its value was computed, but it cannot be differentiated. Register one "
            f"with ad_core.extend.def{mode.lower()}, or rewrite the code with functions that have rules."
        )

    return raise_missing


class SparseCotangent:
    """Cotangents of some elements of a container; the missing ones are zero."""

    __slots__ = ("container", "parts")

    def __init__(self, parts: dict, container: Any) -> None:
        self.parts = parts
        self.container = container

    def __add__(self, other: Any) -> SparseCotangent:
        if not isinstance(other, SparseCotangent):
            return NotImplemented
        parts = dict(self.parts)
        for key, value in other.parts.items():
            parts[key] = value if key not in parts else add_cotangents(parts[key], value)
        return SparseCotangent(parts, self.container)

    def materialize(self) -> Any:
        """A container shaped like the traced one, holding these cotangents and zeros elsewhere."""
        container = self.container
        if isinstance(container, dict):
            return {
                key: self.parts[key] if key in self.parts else vspace(value).zeros()
                for key, value in container.items()
            }
        items = [
            self.parts[index] if index in self.parts else vspace(value).zeros()
            for index, value in enumerate(container)
        ]
        return tuple(items) if isinstance(container, tuple) else items

    def __repr__(self) -> str:
        return f"SparseCotangent(keys={sorted(self.parts, key=repr)})"

    shape = ()


def add_cotangents(x: Any, y: Any) -> Any:
    """`x + y` for cotangents, element by element inside lists, tuples and dicts (where Python's
    `+` would join two tuples end to end instead of adding them). A sparse cotangent meeting a
    dense one is filled in first."""
    if type(x) is np.ndarray:  # the common case: arrays add as arrays
        return x + y
    if type(x) is SparseCotangent or type(y) is SparseCotangent:
        if type(x) is type(y):
            return x + y
        x, y = (v.materialize() if type(v) is SparseCotangent else v for v in (x, y))
    if isinstance(x, list | tuple):
        return type(x)(add_cotangents(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, dict):
        return {key: add_cotangents(value, y[key]) for key, value in x.items()}
    raw = getval(x)
    if isinstance(raw, list | tuple | dict):
        # A traced container (a derivative being differentiated again): add element by element
        # through traced reads, and pack the sums into a traced container again.
        from .containers import container_pack

        keys = tuple(raw) if isinstance(raw, dict) else tuple(range(len(raw)))
        kind = dict if isinstance(raw, dict) else type(raw)
        return container_pack(kind, keys, *(add_cotangents(x[key], y[key]) for key in keys))
    return x + y


def backward_pass(g: Any, end_node: VJPNode) -> Any:
    """Propagate the cotangent `g` of the output back to the root and return the root's.

    Each parent receives one contribution per edge into it; contributions are added, because
    a value used on several paths influences the output along all of them.
    """
    outgrads = {end_node: g}
    recorder = _inspect.active
    for node in toposort(end_node):
        g = outgrads.pop(node)
        if type(g) is SparseCotangent:
            g = g.materialize()
        if recorder is not None:
            recorder.on_visit(node, g)
        edges = zip(node.parents, node.parent_argnums, node.vjps, strict=True)
        for parent, argnum, vjp in edges:
            contribution = vjp(g)
            if getattr(contribution, "shape", ()) != parent.shape:
                raise _shape_error(node, argnum, contribution, parent)
            previous = outgrads.get(parent)
            total = (contribution if previous is None
                     else add_cotangents(previous, contribution))
            outgrads[parent] = total
            if recorder is not None:
                recorder.on_vjp(node, argnum, g, contribution)
                recorder.on_accumulate(parent, previous, contribution, total)
    return g


def _shape_error(node: VJPNode, argnum: int, contribution: Any, parent: VJPNode) -> ValueError:
    return ValueError(
        f"ad_core: the VJP rule of {node.fun.__name__} for argument {argnum} returned "
        f"a cotangent of shape {np.shape(contribution)}, but that argument has shape "
        f"{parent.shape}; a rule must return its input's shape "
        "(reduce broadcast axes with unbroadcast_f)"
    )


def make_vjp(fun: Callable, x: Any) -> tuple[Callable, Any]:
    """Trace `fun` at `x`; return `(vjp, value)` where `vjp(g)` is $g^\\top J_f(x)$."""
    start_node = VJPNode.new_root(x)
    end_value, end_node = trace(start_node, _packing_output(fun), x)
    if end_node is None:

        def vjp(g):
            return vspace(x).zeros()

    else:

        def vjp(g):
            return backward_pass(g, end_node)

    return vjp, end_value


def _packing_output(fun: Callable) -> Callable:
    """`fun`, with a list, tuple or dict of traced values that it returns packed into one traced
    value. Without this, such an output (a VJP with respect to a tuple, a JVP of a function
    returning a pair) is not a box, so the trace would take it for a constant: a zero
    derivative, and the boxes inside leak out as the value."""
    from .containers import pack_output

    return lambda x: pack_output(fun(x))


def defvjp(fun: Callable, *vjpmakers: Callable | None, argnums: Any = None) -> None:
    """Register curried VJP rules: `vjpmaker(ans, *args, **kwargs)` returns `g -> contribution`.

    One maker per argument, in order (or for `argnums`); `None` means the output does not
    depend on that argument, so its contribution is zero.
    """
    argnums = range(len(vjpmakers)) if argnums is None else argnums
    for argnum, maker in zip(argnums, vjpmakers, strict=False):
        fun.vjps[argnum] = _zero_vjp_maker(argnum) if maker is None else maker


def defvjp_argnum(fun: Callable, vjpmaker: Callable, argnums: Any = None) -> None:
    """Register one maker, `vjpmaker(argnum, ans, args, kwargs)`, for the arguments in
    `argnums`, or for every argument however many there are (`argnums=None`)."""
    if argnums is None:
        fun.vjp_every_argnum = vjpmaker
        return
    for argnum in argnums:
        fun.vjps[argnum] = _bind_argnum(vjpmaker, argnum)


def defvjp_argnums(fun: Callable, vjpmaker: Callable) -> None:
    """HIPS/autograd's joint form: `vjpmaker(argnums, ans, args, kwargs)` returns a function
    from the cotangent to the contributions for all of `argnums`, in order. A node here asks
    for one argument at a time, so the maker is called with a one-element `argnums`."""
    defvjp_argnum(
        fun, lambda argnum, ans, args, kwargs: _only_contribution(vjpmaker((argnum,), ans, args, kwargs))
    )


def _only_contribution(joint_vjp: Callable) -> Callable:
    return lambda g: next(iter(joint_vjp(g)))


def _bind_argnum(maker: Callable, argnum: int) -> Callable:
    return lambda ans, *args, **kwargs: maker(argnum, ans, args, kwargs)


def _zero_vjp_maker(argnum: int) -> Callable:
    return lambda ans, *args, **kwargs: lambda g: vspace(args[argnum]).zeros()


# ---------------------------------------------------------------------------------------------
# Forward mode
# ---------------------------------------------------------------------------------------------


class JVPNode(Node):
    """A forward-mode node: it holds its tangent `g`, computed when the node is created."""

    __slots__ = ("fun", "g", "parents", "value")

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.fun = fun
        self.value = value
        self.parents = ()
        rules = fun.jvps
        recorder = _inspect.active
        tangent = None
        for argnum, parent in zip(parent_argnums, parents, strict=True):
            rule = rules.get(argnum) or _fallback_jvp(fun, argnum)
            contribution = rule(parent.g, value, *args, **kwargs)
            if recorder is not None:
                recorder.on_jvp(self, parent, fun, argnum, parent.g, contribution)
            tangent = contribution if tangent is None else add_cotangents(tangent, contribution)
        self.g = tangent

    def initialize_root(self, value, g):
        self.fun = None
        self.value = value
        self.parents = ()
        self.g = g


def make_jvp(fun: Callable, x: Any) -> Callable:
    """Return `jvp(v) -> (value, J_f(x) v)`: one forward pass per direction `v`."""

    def jvp(v):
        start_node = JVPNode.new_root(x, v)
        end_value, end_node = trace(start_node, _packing_output(fun), x)
        if end_node is None:
            return end_value, vspace(end_value).zeros()
        return end_value, end_node.g

    return jvp


def defjvp(fun: Callable, *jvpfuns: Callable | None, argnums: Any = None) -> None:
    """Register JVP rules `jvpfun(g, ans, *args, **kwargs)`; `None` means zero tangent."""
    argnums = range(len(jvpfuns)) if argnums is None else argnums
    for argnum, jvpfun in zip(argnums, jvpfuns, strict=False):
        fun.jvps[argnum] = _zero_jvp if jvpfun is None else jvpfun


def defjvp_argnum(fun: Callable, jvpmaker: Callable, argnums: Any = None) -> None:
    """Register one JVP, `jvpmaker(argnum, g, ans, args, kwargs)`, for the arguments in
    `argnums`, or for every argument however many there are (`argnums=None`)."""
    if argnums is None:
        fun.jvp_every_argnum = jvpmaker
        return
    for argnum in argnums:
        fun.jvps[argnum] = _bind_jvp_argnum(jvpmaker, argnum)


def defjvp_argnums(fun: Callable, jvpmaker: Callable) -> None:
    """HIPS/autograd's joint form: `jvpmaker(argnums, gs, ans, args, kwargs)` returns the
    output's tangent for the tangents `gs` of the arguments `argnums`. By linearity it is the
    sum of one-argument calls, which is how a node here makes it."""
    defjvp_argnum(fun, lambda argnum, g, ans, args, kwargs: jvpmaker((argnum,), (g,), ans, args, kwargs))


def _fallback_jvp(fun: Callable, argnum: int) -> Callable:
    """As `_fallback_vjp_maker`, for forward mode."""
    every_argnum = getattr(fun, "jvp_every_argnum", None)
    if every_argnum is None:
        return _missing_rule("JVP", fun, argnum)
    rule = fun.jvps[argnum] = _bind_jvp_argnum(every_argnum, argnum)
    return rule


def _bind_jvp_argnum(jvpmaker: Callable, argnum: int) -> Callable:
    return lambda g, ans, *args, **kwargs: jvpmaker(argnum, g, ans, args, kwargs)


def _zero_jvp(g, ans, *args, **kwargs):
    return vspace(ans).zeros()


def def_linear(fun: Callable) -> None:
    """Declare `fun` linear in each argument: its JVP is `fun` applied to the tangent."""
    defjvp_argnum(
        fun,
        lambda argnum, g, ans, args, kwargs: fun(
            *args[:argnum], g, *args[argnum + 1 :], **kwargs
        ),
    )




# ---------------------------------------------------------------------------------------------
# Vector spaces: what zeros, ones, random directions and inner products mean for a value
# ---------------------------------------------------------------------------------------------


class VSpace:
    """The vector space a value lives in: a shape and a float or complex dtype."""

    __slots__ = ("dtype", "shape")

    def __init__(self, shape: tuple, dtype: np.dtype) -> None:
        self.shape = shape
        self.dtype = dtype

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def iscomplex(self) -> bool:
        return self.dtype.kind == "c"

    def zeros(self) -> np.ndarray:
        return np.zeros(self.shape, self.dtype)

    def ones(self) -> np.ndarray:
        return np.ones(self.shape, self.dtype)

    def randn(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A standard normal sample; from NumPy's global generator without `rng`, as in autograd."""
        rng = np.random if rng is None else rng
        sample = rng.standard_normal(self.shape)
        if self.iscomplex:
            sample = sample + 1j * rng.standard_normal(self.shape)
        return np.asarray(sample, self.dtype)

    def standard_basis(self):
        for index in np.ndindex(*self.shape):
            vector = np.zeros(self.shape, self.dtype)
            vector[index] = 1
            yield vector

    def inner_prod(self, x: Any, y: Any) -> float:
        """$\\langle x, y\\rangle = \\mathrm{Re}\\sum_i \\overline{x_i} y_i$ (traced when `x` or `y` is)."""
        if isinstance(x, Box) or isinstance(y, Box):
            from . import numpy as anp

            return anp.real(anp.sum(anp.conj(x) * y))
        return float(np.real(np.vdot(np.ravel(x), np.ravel(y))))

    def covector(self, x: Any) -> Any:
        return np.conj(x)

    def add(self, x: Any, y: Any) -> Any:
        return x + y

    def scale(self, x: Any, factor: float) -> Any:
        return x * factor

    scalar_mul = scale  # autograd's name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VSpace) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"VSpace(shape={self.shape}, dtype={self.dtype})"


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
        return add_cotangents(x, y)

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


def vspace(value: Any) -> VSpace | ContainerVSpace:
    """The vector space of a float or complex value (or a container of them); integers have
    none, because they are not smooth."""
    value = getval(value)
    if isinstance(value, list | tuple | dict):
        return ContainerVSpace(value)
    if isinstance(value, np.ndarray | np.generic):
        dtype, shape = value.dtype, value.shape
    else:
        dtype, shape = np.result_type(value), np.shape(value)
    if dtype.kind not in "fc":
        raise TypeError(
            f"ad_core: cannot differentiate with respect to a value of dtype {dtype} "
            f"(shape {shape}); gradients need floats: pass it as float, "
            "e.g. x.astype(float) or 2.0 instead of 2"
        )
    return VSpace(shape, dtype)
