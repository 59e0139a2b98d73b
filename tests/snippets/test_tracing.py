"""The built chapter "Tracing with boxes" shows the graphs and outcomes the engine produces."""

from __future__ import annotations

import autograd
import numpy as np

import ad_core.numpy as anp
from ad_core.recorder import trace_graph
from bookkit.testing import shown


def branchy(x):
    y = x * x if x > 1.0 else 3.0 * x
    while y < 10.0:
        y = y * 2.0
    return y


def test_control_flow_rows(text: str) -> None:
    for x in [0.5, 1.5, 4.0]:
        expected = autograd.grad(branchy)(x)
        line = next((line for line in text.splitlines() if line.startswith(f"| {shown(x)} |")), None)
        assert line is not None, f"no control-flow row for x = {x}"
        assert f"| {shown(expected)} |" in line + " |"
        multiplies = trace_graph(branchy, x).nodes[1:]
        assert line.count("multiply") == len(multiplies)


def test_graph_table_lists_the_primitives(text: str) -> None:
    w = np.array([0.5, -1.0, 2.0])
    graph = trace_graph(lambda x: anp.sum(anp.tanh(x * w) ** 2), np.array([1.0, 0.5, -0.25]))
    for node in graph.nodes[1:]:
        assert f"| {node.id} | {node.primitive} |" in text


def test_mermaid_diagram_present(html: str) -> None:
    assert 'class="mermaid"' in html


def test_untraceable_code_is_refused(text: str) -> None:
    for label in ["anp.sin(float(x))", "out[0] = x into np.zeros(2)", "total += x into np.zeros(3)"]:
        line = next((line for line in text.splitlines() if label in line), None)
        assert line is not None and "Error" in line, label
    traced = next(line for line in text.splitlines() if "np.sin(x) * 2.0" in line)
    assert f"{2 * np.cos(0.5):.6f}" in traced


def test_primitive_table_rule_columns_follow_real_calls(text: str) -> None:
    """A rule column says yes exactly when differentiating through the function works."""
    from ad_core import make_jvp, make_vjp

    x = np.array([0.5, -1.5, 2.5])
    other = np.array([0.3, 0.7, -1.1])
    cases = {
        "anp.multiply": lambda a: anp.multiply(a, other),
        "anp.sum": lambda a: anp.sum(a),
        "anp.dot": lambda a: anp.dot(a, other),
        "anp.array_getitem": lambda a: anp.array_getitem(a, 1),
        "anp.float_power": lambda a: anp.float_power(a, 2.0),
    }

    def works(call) -> bool:
        try:
            call()
        except NotImplementedError:
            return False
        return True

    for label, of_first in cases.items():
        vjp_works = works(lambda f=of_first: make_vjp(f)(x)[0](np.ones_like(f(x))))
        jvp_works = works(lambda f=of_first: make_jvp(f)(x)(x))
        line = next(line for line in text.splitlines() if line.startswith(f"| {label} |"))
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[2:4] == ["yes" if vjp_works else "no", "yes" if jvp_works else "no"], (label, cells)


def test_what_the_graph_keeps_alive(text: str) -> None:
    """A value a rule reads lives as long as the graph (past a backward pass of `make_vjp`'s
    `vjp`, until `vjp` is dropped); an output no rule reads is freed during the forward pass."""
    import gc
    import weakref

    from ad_core import grad, make_vjp

    w, b = np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.2, 0.3])
    refs = {}

    def f(x):
        product = x * w  # add's rules keep only its metadata (shape, dtype)
        total = product + b  # read by no rule: tanh's rule reads its own output
        hidden = anp.tanh(total)  # read by the rule of tanh (its ans) and of the square
        refs["total"], refs["hidden"] = weakref.ref(total._value), weakref.ref(hidden._value)
        return anp.sum(hidden**2)

    x = np.array([1.0, 0.5, -0.25])
    vjp, _ = make_vjp(f)(x)
    gc.collect()
    assert refs["total"]() is None and refs["hidden"]() is not None
    vjp(1.0)
    gc.collect()
    assert refs["hidden"]() is not None, "a backward pass does not free the graph"
    del vjp
    gc.collect()
    assert refs["hidden"]() is None
    grad(f)(x)
    gc.collect()
    assert refs["hidden"]() is None
    assert "keep the forward values alive until the backward pass." not in text
