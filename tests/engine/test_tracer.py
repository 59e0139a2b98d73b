"""`ad_core.tracer`: what a traced value is (a `Box`), `getval` through nested traces,
`notrace_primitive`, and `toposort`, which orders a graph so a node comes before its parents."""

from __future__ import annotations

import numpy as np

import ad_core.numpy as anp
from ad_core import (
    grad,
)
from ad_core.core import VJPNode
from ad_core.extend import (
    Box,
    vspace,
)
from ad_core.tracer import getval, isbox, notrace_primitive, toposort, trace


def test_traced_values_are_boxes_and_vspace_describes_them(rng) -> None:
    x = rng.standard_normal((2, 3))
    seen = {}

    def spy(v):
        seen["box"] = v
        return anp.sum(v)

    grad(spy)(x)
    assert isinstance(seen["box"], Box)
    space = vspace(x)
    assert space.shape == (2, 3)
    assert space.dtype == np.float64
    assert vspace(seen["box"]).shape == (2, 3)


def test_getval_unwraps_every_level_of_a_nested_trace() -> None:
    seen = {}

    def inner(x):
        seen["levels"] = x
        return x**3

    grad(lambda y: grad(inner)(y * 2.0))(1.5)
    box = seen["levels"]
    assert isbox(box) and isbox(box._value), "a gradient of a gradient boxes the value twice"
    assert not isbox(getval(box))
    assert getval(box) == 3.0


def test_a_notrace_primitive_returns_a_plain_value_inside_a_trace(rng) -> None:
    seen = {}

    @notrace_primitive
    def count_positive(x):
        return int(np.sum(x > 0))

    def loss(x):
        seen["count"] = count_positive(x)
        return anp.sum(x * seen["count"])

    x = rng.standard_normal(5)
    gradient = grad(loss)(x)
    assert type(seen["count"]) is int and seen["count"] == int(np.sum(x > 0))
    np.testing.assert_array_equal(gradient, np.full(5, float(np.sum(x > 0))))


def test_toposort_puts_each_node_before_its_parents_and_a_shared_parent_after_all_children(rng) -> None:
    """A diamond: `x` feeds `a = sin(x)` and `b = x**2`, and `a * b` is the output. `x` may be
    reached first through either path, but must come last, after both of its children."""
    x = rng.standard_normal(3)

    def diamond(v):
        return anp.sin(v) * v**2

    start = VJPNode.new_root()
    _, end_node = trace(start, diamond, x)
    order = toposort(end_node)
    assert order[0] is end_node
    assert order[-1] is start
    assert len(order) == len(set(order)) == 4
    position = {node: index for index, node in enumerate(order)}
    for node in order:
        for parent in node.parents:
            assert position[node] < position[parent]

