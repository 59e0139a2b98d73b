"""The chain of layers this chapter measures, and the two ways it counts what a tape keeps:
tracemalloc's live bytes (what the allocator says) and the arrays reachable from the VJP
closures (what the graph says), which share no code."""

from __future__ import annotations

import contextlib
import gc
import math
import tracemalloc
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import ad_core.numpy as anp
from ad_core import checkpoint, make_vjp
from ad_core.tracer import toposort

# Entries of every activation: large, so that a node's own few hundred bytes are noise, and
# under NumPy's 256 KiB threshold for reusing a temporary in place, so that each product in a
# rule is an array of its own and the peak can be counted in whole arrays.
WIDTH = 30_000
ARRAY_BYTES = WIDTH * np.dtype(np.float64).itemsize
evaluations = {"layer": 0}


# --8<-- [start:layer]
def layer(x):
    evaluations["layer"] += 1  # counted, to show what checkpointing recomputes
    return anp.sin(x) * 0.9


def chain(depth):
    """`depth` layers, then a sum: a scalar to differentiate."""
    def loss(x):
        for _ in range(depth):
            x = layer(x)
        return anp.sum(x)

    return loss


def checkpointed_chain(depth, segment):
    """The same layers, in `depth // segment` checkpointed blocks of `segment` layers."""
    def block(x):
        for _ in range(segment):
            x = layer(x)
        return x

    block = checkpoint(block)

    def loss(x):
        for _ in range(depth // segment):
            x = block(x)
        return anp.sum(x)

    return loss
# --8<-- [end:layer]


def start_point(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(WIDTH)


@dataclass(frozen=True)
class Measured:
    """One traced run: bytes live between the passes and at the backward pass's peak (both
    relative to before the trace, in units of one activation), and layer evaluations."""

    kept_arrays: float
    peak_arrays: float
    forward_evaluations: int
    backward_evaluations: int
    gradient: np.ndarray


def measure(loss: Callable, x: np.ndarray) -> Measured:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        evaluations["layer"] = 0
        vjp, _ = make_vjp(loss)(x)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
        forward = evaluations["layer"]
        tracemalloc.reset_peak()
        gradient = vjp(1.0)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return Measured(kept / ARRAY_BYTES, peak / ARRAY_BYTES, forward,
                    evaluations["layer"] - forward, gradient)


def whole_activations(measured: float) -> int:
    """A measurement in activations, as the whole number of activations it holds. The rest, a
    few hundred bytes per node and closure, varies a little with what ran before (free lists,
    interned objects), so it is not printed; the tolerance below it absorbs it."""
    return math.floor(measured + 0.1)


# 2%: nodes and closures add about 0.7% to each activation, and the mutation tests, which wrap
# every VJP closure in a recording one, add about 0.5% more; the count printed is exact either way.
def activations(measured: float, expected: int, rtol: float = 0.02) -> Any:
    """`measured` (activations) within `rtol` (and a tenth of an activation) of the count
    `expected`, made another way, and shown as the whole number of activations it holds,
    which must be that count."""
    from bookkit import checked

    np.testing.assert_allclose(measured, expected, rtol=rtol, atol=0.1)
    return checked(whole_activations(measured), against=expected)


def _arrays_in(obj: Any, found: dict[int, np.ndarray], seen: set[int]) -> None:
    """Every ndarray reachable from `obj` through closure cells, tuples, lists and dicts."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        found[id(obj)] = obj
    elif isinstance(obj, types.FunctionType):
        for cell in obj.__closure__ or ():
            with contextlib.suppress(ValueError):  # an empty cell has no contents
                _arrays_in(cell.cell_contents, found, seen)
    elif isinstance(obj, tuple | list):
        for item in obj:
            _arrays_in(item, found, seen)
    elif isinstance(obj, dict):
        for item in obj.values():
            _arrays_in(item, found, seen)
    elif hasattr(obj, "__slots__") and not isinstance(obj, type):  # the checkpoint's shared record
        for name in obj.__slots__:
            _arrays_in(getattr(obj, name, None), found, seen)


def graph_of(vjp: Callable) -> list:
    """The nodes of the graph a `make_vjp` closure keeps, output first."""
    (end_node,) = (cell.cell_contents for cell in vjp.__closure__
                   if type(cell.cell_contents).__name__ == "VJPNode")
    return toposort(end_node)


def arrays_in_closure(closure: Callable) -> dict[int, np.ndarray]:
    """The distinct arrays one VJP closure holds, by id."""
    found: dict[int, np.ndarray] = {}
    _arrays_in(closure, found, set())
    return found


def arrays_held(vjp: Callable) -> dict[int, np.ndarray]:
    """The distinct arrays the graph's VJP closures hold, by id."""
    found: dict[int, np.ndarray] = {}
    for node in graph_of(vjp):
        for closure in node.vjps:
            found.update(arrays_in_closure(closure))
    return found


def _warm_up() -> None:
    """Run every path once on a tiny input, so that lazy imports and caches the first run
    fills are not counted as the tape's memory."""
    tiny = np.linspace(0.1, 0.3, 3)
    for loss in (chain(2), checkpointed_chain(2, 1)):
        vjp, _ = make_vjp(loss)(tiny)
        vjp(1.0)
    gc.collect()


_warm_up()
