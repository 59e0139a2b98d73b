"""Layer 2, the core: what a node stores in each mode, how cotangents and tangents flow.

Reverse mode: a `VJPNode` keeps one vector-Jacobian product per traced parent, and
`backward_pass` walks the graph from the output, adding every contribution into its parent.
Forward mode: a `JVPNode` computes its tangent as soon as it is created, from its parents'
tangents. The rules themselves (`defvjp`, `defjvp`) are registered on primitives. Both modes
need to know what zero, one and an inner product mean for a value: its vector space (`vspace`),
defined first because everything below uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from .tracer import Box, Node, getval, toposort, trace
from .tracer import primitive_jvps as primitive_jvps  # autograd.core's names for the rule tables
from .tracer import primitive_vjps as primitive_vjps

# ---------------------------------------------------------------------------------------------
# Vector spaces: what zeros, ones, random directions and inner products mean for a value
# ---------------------------------------------------------------------------------------------


class VSpace:
    """The vector space a value lives in: a shape and a float or complex dtype.

    Values of other kinds register a space of their own (`VSpace.register(list, ...)`, as
    HIPS/autograd's `VSpace.register`); `ad_core.containers` does so for lists, tuples and
    dicts."""

    __slots__ = ("dtype", "shape")
    mappings: ClassVar[dict[type, Callable[[Any], Any]]] = {}

    @classmethod
    def register(cls, value_type: type, make_space: Callable[[Any], Any]) -> None:
        cls.mappings[value_type] = make_space

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
            # A derivative being differentiated again: a box's own methods call the traced
            # NumPy (`ad_core.numpy`, a later layer this one does not import).
            conj_x = x.conj() if isinstance(x, Box) else np.conj(x)
            return (conj_x * y).sum().real
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


def vspace(value: Any) -> Any:
    """The vector space of a float or complex value, or of a registered kind of value (a list,
    tuple or dict of them); integers have none, because they are not smooth."""
    value = getval(value)
    make_space = VSpace.mappings.get(type(value))
    if make_space is not None:
        return make_space(value)
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


# ---------------------------------------------------------------------------------------------
# Reverse mode
# ---------------------------------------------------------------------------------------------


def _missing_rule(mode: str, fun: Callable, argnum: int) -> Callable:
    def raise_missing(*_args, **_kwargs):
        raise NotImplementedError(
            f"ad_core: no {mode} rule is defined for {fun.__name__} with respect to argument "
            f"{argnum}; its value was computed, but it cannot be differentiated. Register one "
            f"with ad_core.extend.def{mode.lower()}, or rewrite the code with functions that have rules."
        )

    return raise_missing


def _bind_argnum(maker: Callable, argnum: int) -> Callable:
    return lambda ans, *args, **kwargs: maker(argnum, ans, args, kwargs)


def _fallback_vjp_maker(fun: Callable, argnum: int) -> Callable:
    """The maker for an argument without a rule of its own: the one `defvjp_argnum` registered
    for every argument, if any, or one whose VJP raises (the value was computed; only
    differentiating through it fails)."""
    every_argnum = getattr(fun, "vjp_every_argnum", None)
    if every_argnum is None:
        return lambda ans, *args, **kwargs: _missing_rule("VJP", fun, argnum)
    maker = fun.vjps[argnum] = _bind_argnum(every_argnum, argnum)
    return maker


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
    """`x + y` for cotangents. Arrays and numbers add with `+`; a value whose vector space is
    registered (lists, tuples and dicts, where Python's `+` would join two tuples end to end)
    adds as its space says. A sparse cotangent meeting a dense one is filled in first."""
    if type(x) is np.ndarray:  # the common case: arrays add as arrays
        return x + y
    if type(x) is SparseCotangent or type(y) is SparseCotangent:
        if type(x) is type(y):
            return x + y
        x, y = (v.materialize() if type(v) is SparseCotangent else v for v in (x, y))
    make_space = VSpace.mappings.get(type(getval(x)))
    return x + y if make_space is None else make_space(getval(x)).add(x, y)


def _shape_error(node: VJPNode, argnum: int, contribution: Any, parent: VJPNode) -> ValueError:
    return ValueError(
        f"ad_core: the VJP rule of {node.fun.__name__} for argument {argnum} returned "
        f"a cotangent of shape {np.shape(contribution)}, but that argument has shape "
        f"{parent.shape}; a rule must return its input's shape "
        "(reduce broadcast axes with unbroadcast_f)"
    )


def backward_pass(g: Any, end_node: VJPNode) -> Any:
    """Propagate the cotangent `g` of the output back to the root and return the root's.

    Each parent receives one contribution per edge into it; contributions are added, because
    a value used on several paths influences the output along all of them.
    """
    outgrads = {end_node: g}
    for node in toposort(end_node):
        g = outgrads.pop(node)
        if type(g) is SparseCotangent:
            g = g.materialize()
        edges = zip(node.parents, node.parent_argnums, node.vjps, strict=True)
        for parent, argnum, vjp in edges:
            contribution = vjp(g)
            if getattr(contribution, "shape", ()) != parent.shape:
                raise _shape_error(node, argnum, contribution, parent)
            previous = outgrads.get(parent)
            outgrads[parent] = (contribution if previous is None
                                else add_cotangents(previous, contribution))
    return g


def _packing_output(fun: Callable) -> Callable:
    """`fun`, with a list, tuple or dict of traced values that it returns packed into one traced
    value, by the `pack` of the box type registered for it (`containers.SequenceBox.pack`).
    Without this, such an output (a VJP with respect to a tuple, a JVP of a function returning
    a pair) is not a box, so the trace would take it for a constant: a zero derivative."""

    def packed(x):
        output = fun(x)
        pack = getattr(Box.type_mappings.get(type(output)), "pack", None)
        return output if pack is None else pack(output)

    return packed


def _checked_seed(g: Any, shape: tuple) -> Any:
    """`g`, refused unless it has the output's shape. Without this check, some rules broadcast a
    smaller seed (`sin`'s, given a scalar) and others sum a larger one (`add`'s `unbroadcast`),
    with no error; the rest fail later, naming a rule rather than the seed. For an output with
    axes, a list seed is checked by its NumPy shape and returned as an array, for the rules'
    arithmetic; a value without a shape (a number, a container output's seed) counts as ()."""
    if isinstance(g, list) and shape != ():
        try:
            g = np.asarray(g)
        except ValueError:  # a ragged list has no shape
            raise ValueError(
                "ad_core: the vjp returned by make_vjp was given a ragged list as its cotangent g; "
                f"g must have the output's shape {shape}"
            ) from None
    if getattr(g, "shape", ()) != shape:
        raise ValueError(
            f"ad_core: the vjp returned by make_vjp was given a cotangent g of shape "
            f"{getattr(g, 'shape', ())}, but the function's output has shape {shape}; "
            "g must have the output's shape"
        )
    return g


def make_vjp(fun: Callable, x: Any) -> tuple[Callable, Any]:
    """Trace `fun` at `x`; return `(vjp, value)` where `vjp(g)` is $g^\\top J_f(x)$."""
    start_node = VJPNode.new_root(x)
    end_value, end_node = trace(start_node, _packing_output(fun), x)
    output_shape = getattr(end_value, "shape", ())  # vjp keeps the shape, not the output, alive
    if end_node is None:

        def vjp(g):
            _checked_seed(g, output_shape)
            return vspace(x).zeros()

    else:

        def vjp(g):
            return backward_pass(_checked_seed(g, output_shape), end_node)

    return vjp, end_value


def _zero_vjp_maker(argnum: int) -> Callable:
    return lambda ans, *args, **kwargs: lambda g: vspace(args[argnum]).zeros()


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


def _only_contribution(joint_vjp: Callable) -> Callable:
    return lambda g: next(iter(joint_vjp(g)))


def defvjp_argnums(fun: Callable, vjpmaker: Callable) -> None:
    """HIPS/autograd's joint form: `vjpmaker(argnums, ans, args, kwargs)` returns a function
    from the cotangent to the contributions for all of `argnums`, in order. A node here asks
    for one argument at a time, so the maker is called with a one-element `argnums`."""
    defvjp_argnum(
        fun, lambda argnum, ans, args, kwargs: _only_contribution(vjpmaker((argnum,), ans, args, kwargs))
    )


# ---------------------------------------------------------------------------------------------
# Forward mode
# ---------------------------------------------------------------------------------------------


def _bind_jvp_argnum(jvpmaker: Callable, argnum: int) -> Callable:
    return lambda g, ans, *args, **kwargs: jvpmaker(argnum, g, ans, args, kwargs)


def _fallback_jvp(fun: Callable, argnum: int) -> Callable:
    """As `_fallback_vjp_maker`, for forward mode."""
    every_argnum = getattr(fun, "jvp_every_argnum", None)
    if every_argnum is None:
        return _missing_rule("JVP", fun, argnum)
    rule = fun.jvps[argnum] = _bind_jvp_argnum(every_argnum, argnum)
    return rule


class JVPNode(Node):
    """A forward-mode node: it holds its tangent `g`, computed when the node is created."""

    __slots__ = ("fun", "g", "parents", "value")

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.fun = fun
        self.value = value
        self.parents = ()
        rules = fun.jvps
        tangent = None
        for argnum, parent in zip(parent_argnums, parents, strict=True):
            rule = rules.get(argnum) or _fallback_jvp(fun, argnum)
            contribution = rule(parent.g, value, *args, **kwargs)
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


def _zero_jvp(g, ans, *args, **kwargs):
    return vspace(ans).zeros()


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


def def_linear(fun: Callable) -> None:
    """Declare `fun` linear in each argument: its JVP is `fun` applied to the tangent."""
    defjvp_argnum(
        fun,
        lambda argnum, g, ans, args, kwargs: fun(
            *args[:argnum], g, *args[argnum + 1 :], **kwargs
        ),
    )
