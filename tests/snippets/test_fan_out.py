"""The built chapter "Fan-out" shows the accumulation the engine performs and the bugs that
break it; expected values are computed here from closed forms and HIPS/autograd."""

from __future__ import annotations

import autograd
import autograd.numpy as np_ag
import numpy as np

from bookkit.testing import shown


def test_three_arrivals(text: str) -> None:
    x0 = 1.2
    parts = [np.sin(x0), x0 * np.cos(x0), 1.0]
    for part in parts:
        assert any(line.startswith("| ") and f"| {shown(part)} |" in line for line in text.splitlines()), part
    total = autograd.grad(lambda x: x * np_ag.sin(x) + x)(x0)
    assert np.isclose(total, sum(parts))
    assert f"Their sum, {shown(total)}" in text


def test_overwrite_bug_is_caught_exactly_with_fan_out(text: str) -> None:
    rows = {
        "tanh(3 * x)": False,
        "x * sin(x) + x": True,
        "x * x": True,
        "ln x1 + x1 * x2 - sin x2": True,
        "sum(tanh(W @ x) ** 2)": False,
    }
    for label, has_fan_out in rows.items():
        line = next(line for line in text.splitlines() if line.startswith(f"| {label} |"))
        assert line.endswith("| passes | FAILS") == has_fan_out, line
        assert line.endswith("| passes | passes") == (not has_fan_out), line


def test_in_place_accumulation(text: str) -> None:
    x = np.array([0.3, -1.1, 2.0])
    right = autograd.grad(lambda v: np_ag.sum((2 * v + np_ag.sin(v)) + 2 * v))(x)
    # The aliased buffer doubles the cotangent that reaches sin: 4 + 2 cos x instead of 4 + cos x.
    wrong = 4.0 + 2.0 * np.cos(x)
    assert shown(right) in text
    assert shown(wrong) in text
    assert "output array is read-only" in text


def test_hidden_fan_out_gradients(text: str) -> None:
    x = np.array([0.5, -1.0, 2.0])
    cases = {
        "anp.sum(x * x)": autograd.grad(lambda v: np_ag.sum(v * v))(x),
        "x[0] * x[2]": autograd.grad(lambda v: v[0] * v[2])(x),
        "anp.sum(anp.outer(x, x))": autograd.grad(lambda v: np_ag.sum(np_ag.outer(v, v)))(x),
    }
    for label, expected in cases.items():
        line = next(line for line in text.splitlines() if line.startswith(f"| {label} |"))
        assert line.endswith(f"| 2 | 2 | {shown(expected)}"), line


def test_where_it_lives_names_the_functions_that_add(text: str) -> None:
    """Issue #13: the source map listed five functions under "three places add contributions",
    two of which (`toposort`, `unbroadcast_f`) add nothing, and left out `add_cotangents`."""
    import importlib
    import inspect

    from bookkit.testing import table_rows

    rows = [row for row in table_rows(text) if len(row) == 7 and row[0].startswith("ad_core/")]
    symbols = [(row[0], row[1]) for row in rows]
    assert ("ad_core/core.py", "add_cotangents") in symbols, symbols
    adds = ("add_cotangents(", "x + y", "anp.sum(", "add.at(")
    for path, symbol in symbols:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        source = inspect.getsource(getattr(module, symbol))
        assert any(operation in source for operation in adds), f"{symbol} adds nothing"
    assert "no separate function" not in text.lower()
    assert "three places in the engine add" not in text.lower()


def test_numpy_fancy_index_add_does_not_accumulate(text: str) -> None:
    """Exercise 4 says NumPy's plain `g[tokens] += ...` would not add at repeated indices, and
    `np.add.at` does (NumPy 2.x)."""
    assert np.__version__.startswith("2.")
    tokens = np.array([0, 2, 0])
    buffered, unbuffered = np.zeros(4), np.zeros(4)
    buffered[tokens] += 1.0
    np.add.at(unbuffered, tokens, 1.0)
    assert buffered.tolist() == [1.0, 0.0, 1.0, 0.0]
    assert unbuffered.tolist() == [2.0, 0.0, 1.0, 0.0]
    assert "NumPy's plain g[tokens] += ... would not" in " ".join(text.split())


def test_arrival_order_changes_the_last_bits(text: str) -> None:
    """Two valid visiting orders of one graph add the root's three contributions in different
    orders, and floating-point addition is not associative: the page may not say the order
    "does not matter" because addition is commutative."""
    from ad_core.core import VJPNode, add_cotangents, backward_pass
    from ad_core.tracer import toposort, trace

    _, end_node = trace(VJPNode.new_root(1.0), lambda x: 0.1 * x + 0.2 * x + 0.3 * x, 1.0)
    nodes = toposort(end_node)
    engine_position = {node: i for i, node in enumerate(nodes)}

    def backward_in(order):
        # A valid order: every node after all the nodes that use it.
        position = {node: i for i, node in enumerate(order)}
        assert all(position[child] < position[parent] for child in order for parent in child.parents)
        outgrads = {end_node: 1.0}
        for node in order:
            g = outgrads.pop(node)
            for parent, vjp in zip(node.parents, node.vjps, strict=True):
                previous = outgrads.get(parent)
                outgrads[parent] = vjp(g) if previous is None else add_cotangents(previous, vjp(g))
        return g

    root = nodes[-1]
    multiplies = sorted((node for node in nodes if node.parents == (root,)), key=engine_position.get)
    adds = [node for node in nodes if node.parents and node.parents != (root,)]
    by_value = {round(float(node.vjps[0](1.0)), 1): node for node in multiplies}  # 0.1, 0.2, 0.3
    outer, inner = adds[0], adds[1]
    small_first = [outer, inner, by_value[0.1], by_value[0.2], by_value[0.3], root]
    large_first = [outer, by_value[0.3], inner, by_value[0.2], by_value[0.1], root]
    a, b = backward_in(small_first), backward_in(large_first)
    assert a != b and np.isclose(a, b, rtol=1e-15, atol=0)
    assert backward_pass(1.0, end_node) in (a, b)
    assert "addition is\ncommutative" not in text and "does not matter: addition is commutative" not in text
