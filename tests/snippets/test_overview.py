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
