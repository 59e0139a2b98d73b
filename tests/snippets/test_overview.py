"""The built chapter "Overview" shows the live map of ad_core and a snippet run standalone."""

from __future__ import annotations

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit.testing import shown


def test_standalone_run_shows_the_gradient(text: str) -> None:
    x = np.array([0.5, -1.0, 2.0])
    w = np.array([1.0, 0.3, -0.7])
    gradient = grad(lambda v: anp.sum(anp.tanh(v * x) ** 2))(w)
    assert "$ python snippets/overview/first_gradient.py" in text
    assert text.count(shown(gradient)) >= 2  # the page's table and the console output
    assert "exited with code 0" in text


def test_every_overview_snippet_is_on_the_page(text: str) -> None:
    line = next(line for line in text.splitlines() if line.startswith("| overview |"))
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    shown, total = cells[3].split(" of ")
    assert shown == total == cells[1]


def test_self_test_counts_each_name_once_and_every_jvp_rule(text: str) -> None:
    """The counts of the self-test, made here another way: names deduplicated with a set, and a
    JVP rule counted when forward mode really works through the primitive's first argument."""
    import warnings

    from ad_core import make_jvp

    names = {name for name in anp.__all__ if callable(getattr(anp, name))}
    assert f"names {len(names)} callables once each" in text
    primitives = [
        getattr(anp, name) for name in sorted(names) if getattr(getattr(anp, name), "is_primitive", False)
    ]
    # multiply, sum, dot and indexing get their JVP from def_linear, registered for every argument.
    x = np.array([0.5, -1.0, 2.0])
    for function in (anp.multiply, anp.sum, anp.dot):
        args = (x, x) if function is not anp.sum else (x,)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            make_jvp(lambda a, f=function, rest=args[1:]: f(a, *rest))(x)(x)
    with_jvp = sum(bool(f.jvps.get(0) or getattr(f, "jvp_every_argnum", None)) for f in primitives)
    assert f"and {with_jvp} a JVP rule (forward mode)" in text


def test_not_every_differentiable_function_has_a_rule(text: str) -> None:
    """The layer list may not say that `ad_core.numpy` has a rule for each differentiable
    function: `cumprod` and `nansum` are differentiable primitives without one."""
    import pytest

    x = np.array([1.0, 2.0, 3.0])
    for function in (anp.cumprod, anp.nansum):
        assert function.is_primitive
        function(x)  # the value is computed
        with pytest.raises(NotImplementedError, match="no VJP rule"):
            grad(lambda v, function=function: anp.sum(function(v)))(x)
    assert "registers a rule for each differentiable function" not in text


def test_callable_counts_add_up_counted_another_way() -> None:
    """The self-test's kinds of callable, each counted without `is_primitive`, cover them all."""
    names = list(dict.fromkeys(anp.__all__))
    callables = [name for name in names if callable(getattr(anp, name))]
    primitives = [name for name in callables if isinstance(getattr(getattr(anp, name), "vjps", None), dict)]
    flagged = [name for name in callables if getattr(getattr(anp, name), "is_primitive", None) is True]
    assert primitives == flagged


def test_census_says_what_it_leaves_out(text: str) -> None:
    """The census counts scripts; the helper modules it leaves out are counted on the page, and
    here again from the file system (a folder of helpers only has no row)."""
    import re
    from pathlib import Path

    snippets = Path(__file__).resolve().parents[2] / "snippets"
    helpers = list(snippets.glob("*/_*.py"))
    scripts = [p for p in snippets.glob("*/*.py") if not p.name.startswith("_")]
    found = re.search(r"In all: (\d+) scripts .* Not counted: (\d+) helper modules .* in (\d+) folders", text)
    assert found, "the census does not say what it leaves out"
    assert [int(n) for n in found.groups()] == [len(scripts), len(helpers), len({p.parent for p in helpers})]
    only_helpers = {p.parent.name for p in helpers} - {p.parent.name for p in scripts}
    named = re.search(r"a folder of helpers only \(([^)]*)\) has no row", text)
    assert named and set(named.group(1).split(", ")) == only_helpers
    rows = {line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ")}
    assert not rows & only_helpers and {p.parent.name for p in scripts} <= rows


def test_gradient_cost_is_said_of_reverse_mode_and_one_output(text: str) -> None:
    """'A small constant times one evaluation' is the cheap-gradient principle: reverse mode, one
    output. Forward mode needs a pass per input. Checked on the engine: the backward pass of
    `loss` calls one VJP rule per traced argument whatever the size of `w`, and forward mode
    needs one pass per entry of `w` for the same gradient."""
    from ad_core import make_jvp
    from ad_core.recorder import record

    sentence = next(s for s in text.split(". ") if "small constant" in s)
    assert "reverse mode" in sentence and "one output" in sentence
    assert "one pass per input" in text
    vjp_calls = []
    for n in (3, 300):
        x, w = np.linspace(-1, 1, n), np.linspace(0.5, 1.5, n)
        with record() as recording:
            gradient = grad(lambda v, x=x: anp.sum(anp.tanh(v * x) ** 2))(w)
        vjp_calls.append(len(recording.of_kind("vjp")))
        by_forward = [make_jvp(lambda v, x=x: anp.sum(anp.tanh(v * x) ** 2))(w)(e)[1] for e in np.eye(n)]
        np.testing.assert_allclose(by_forward, gradient, rtol=1e-12)
    assert vjp_calls[0] == vjp_calls[1]


def test_only_primitive_calls_become_nodes(text: str) -> None:
    """"Each call of a primitive on a traced value becomes a node": a function without a
    derivative (`shape`, `floor`, a comparison) returns a plain value and adds no node, and a
    composed function (`stack`) adds the nodes of the primitives it calls, not one of its own."""
    from ad_core.recorder import trace_graph
    from ad_core.tracer import Box

    assert "Each call of a primitive" in " ".join(text.split())
    seen = {}

    def f(x):
        seen["plain"] = [anp.shape(x), anp.floor(x), x > 0]
        return anp.sum(anp.stack([anp.sin(x), x]))

    graph = trace_graph(f, np.array([0.5, 2.0]))
    assert not any(isinstance(value, Box) for value in seen["plain"])
    names = [node.primitive for node in graph.nodes if not node.is_root]
    assert {"sin", "expand_dims", "sum"} <= set(names), names  # stack's primitives
    assert not {"stack", "shape", "floor", "greater"} & set(names), names
