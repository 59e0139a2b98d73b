"""The built chapter "The backward pass" shows the order, timeline and experiments the engine
produces; expected values come from the engine's own toposort, HIPS/autograd and closed forms."""

from __future__ import annotations

import autograd
import autograd.numpy as np_ag
import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core.core import VJPNode
from ad_core.tracer import toposort, trace
from bookkit.testing import shown

POINT = np.array([2.0, 5.0])


def f(x):
    x1, x2 = x[0], x[1]
    v1 = anp.log(x1)
    v2 = x1 * x2
    v3 = anp.sin(x2)
    return (v1 + v2) - v3


def test_toposort_table_follows_the_engine(text: str) -> None:
    _, end_node = trace(VJPNode.new_root(POINT), f, POINT)
    order = toposort(end_node)
    primitives = ["root" if node.fun is None else node.fun.__name__ for node in order]
    for position, primitive in enumerate(primitives):
        assert any(
            line.startswith(f"| {position} |") and f"| {primitive} |" in line for line in text.splitlines()
        ), (position, primitive)


def test_timeline_has_one_visit_per_node(text: str) -> None:
    _, end_node = trace(VJPNode.new_root(POINT), f, POINT)
    nodes = len(toposort(end_node))
    visits = [line for line in text.splitlines() if "holds its full cotangent" in line]
    assert len(visits) == nodes


def test_discovery_order_is_wrong_and_caught(text: str) -> None:
    def reference(x):
        return np_ag.log(x[0]) + x[0] * x[1] - np_ag.sin(x[1])

    right = autograd.grad(reference)(POINT)
    line = next(line for line in text.splitlines() if line.startswith("| backward_pass (toposort)"))
    assert shown(right[0]) in line and shown(right[1]) in line and line.endswith("yes")
    wrong = next(line for line in text.splitlines() if line.startswith("| discovery order"))
    assert wrong.endswith("no")
    # Visiting x2's node after sin only, the shortcut keeps just the sin path: -cos(x2).
    assert shown(-np.cos(POINT[1])) in wrong


@pytest.mark.parametrize("levels", [1, 2, 4, 8, 12])
def test_eager_recursion_counts(text: str, levels: int) -> None:
    # Each level's multiply calls two VJPs, and each of sin and cos one, once per path that
    # reaches it: calls(L) = 4 + 2 calls(L - 1), so 4 (2^L - 1); backward_pass: 4 per level.
    eager = 4 * (2**levels - 1)
    row = f"| {levels} | {2**levels:,} | {eager:,} | {4 * levels} | yes"
    assert row in text


def test_recursive_sort_fails_on_a_long_chain(text: str) -> None:
    def chain(x, length):
        for _ in range(length):
            x = x + np_ag.sin(x) * 0.01
        return x

    rows = [line for line in text.splitlines() if line.startswith("| 10 | 31 nodes |")]
    assert rows, "no row for the 10-link chain"
    assert rows[0].endswith(shown(autograd.grad(chain)(0.3, 10)))
    failing = [line for line in text.splitlines() if "nodes | RecursionError |" in line]
    assert len(failing) == 1


def test_seed_is_read_where_it_is_made(text: str) -> None:
    """The page says where the seed comes from; `grad` itself holds no seed, `_output_seed` does."""
    import inspect

    from ad_core import grad
    from ad_core.differential_operators import _grad, _output_seed

    assert "ones()" not in inspect.getsource(grad)
    assert "_output_seed(ans)" in inspect.getsource(_grad)
    assert "vspace(ans).ones()" in inspect.getsource(_output_seed)
    # The listing shows the function that makes the seed, and the table names it.
    assert "_output_seed · lines" in text
    assert "vspace(ans).ones() in _output_seed, called by _grad" in text
    assert "vspace(ans).ones() in grad |" not in text


def test_toposort_keeps_its_work_in_a_dict_and_three_lists(text: str) -> None:
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(toposort))
    lists = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.List)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
    }
    assert lists == {"stack", "order", "ready"}
    assert "a dictionary and three lists" in text
