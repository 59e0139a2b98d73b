"""The chapter "Higher-order derivatives": derivatives, Hessians and counted HVP costs."""

from __future__ import annotations

import autograd
import autograd.numpy as agnp
import numpy as np

from bookkit import fmt_array, latex_matrix
from bookkit.testing import table_rows


def test_tanh_derivatives_match_autograd(text: str) -> None:
    first = autograd.grad(agnp.tanh)
    second, third = autograd.grad(first), autograd.grad(autograd.grad(first))
    rows = {row[0]: row for row in table_rows(text) if len(row) == 5}
    for x in [-1.0, 0.0, 0.5, 2.0]:
        row = rows[f"{x:g}"]
        assert row[2:] == [fmt_array(first(x)), fmt_array(second(x)), fmt_array(third(x))], row


def test_hessian_matches_autograd(text: str) -> None:
    features = np.array([[1.0, 2.0, -1.0], [0.5, -1.0, 2.0], [-1.5, 0.5, 1.0]])
    labels = np.array([1.0, -1.0, 1.0])

    def loss(w):
        return agnp.sum(agnp.log1p(agnp.exp(-labels * (features @ w))))

    H = autograd.hessian(loss)(np.array([0.1, -0.2, 0.3]))
    assert latex_matrix(H) in text


def test_hvp_costs_full_hessian_grows_hvp_does_not(text: str) -> None:
    rows = [row for row in table_rows(text) if len(row) == 6 and row[0].isdigit()]
    by_method: dict[str, list[tuple[int, int]]] = {}
    for row in rows:
        by_method.setdefault(row[1], []).append((int(row[0]), int(row[2])))
    full = by_method["full Hessian, then H @ v"]
    assert [passes for _, passes in full] == [n + 1 for n, _ in full]
    assert {passes for _, passes in by_method["forward-over-reverse"]} == {1}
    assert {passes for _, passes in by_method["reverse-over-reverse"]} == {2}


def test_raw_numpy_rule_fails_and_getval_rule_is_silently_zero(text: str) -> None:
    assert "TypeError: ad_core: converting a traced value" in text
    assert "[0. 0.], silently wrong" in text
    assert "mode 'rev', order 2" in text


def test_the_warning_on_numpy_calls_inside_rules_holds(text: str) -> None:
    """The page: NumPy ufuncs such as `np.cos` work on boxes; `np.dot`, `np.asarray`,
    `float(...)` and in-place writes raise `TypeError` (NumPy 2.x, this engine's ArrayBox)."""
    import pytest

    import ad_core.numpy as anp
    from ad_core import grad

    assert "float(...) and in-place writes do not" in text
    x = np.array([0.3, 0.4])
    np.testing.assert_allclose(grad(lambda x: anp.sum(np.cos(x)))(x), -np.sin(x), rtol=1e-15)

    def in_place(x):
        y = x * 1.0
        y[0] = 2.0
        return y

    for breaks in (lambda x: np.dot(x, x), np.asarray, lambda x: float(x[0]), in_place):
        with pytest.raises(TypeError):
            grad(lambda x, f=breaks: anp.sum(f(x)))(x)


def test_primitive_walkthrough_names_the_code_that_runs(text: str) -> None:
    """The walkthrough quotes the wrapper's own test for nesting; there is no `nested` flag."""
    import inspect

    from ad_core.tracer import primitive

    source = inspect.getsource(primitive)
    assert "f_wrapped if level else f_raw" in source and "nested =" not in source
    assert "(f_wrapped if level else f_raw)" in text
    assert "nested is true" not in text


def test_the_warning_names_the_errors_each_unsupported_write_raises() -> None:
    """The warning said every in-place write makes the engine raise `TypeError`; writing one
    traced number into a plain array (`a[i] = x`) fails inside NumPy with `ValueError`."""
    from pathlib import Path

    import pytest

    import ad_core.numpy as anp
    from ad_core import grad

    def write_slice(x):
        a = np.zeros(2)
        a[:] = x
        return anp.sum(a)

    def write_element(x):
        a = np.zeros(2)
        a[0] = x[0]
        return anp.sum(a)

    x = np.array([0.3, 0.7])
    with pytest.raises(TypeError):
        grad(write_slice)(x)
    with pytest.raises(ValueError):
        grad(write_element)(x)
    page = (Path(__file__).parents[2] / "docs" / "part1" / "higher-order.md").read_text(encoding="utf-8")
    assert "`ValueError` for `a[i] = x`" in page
