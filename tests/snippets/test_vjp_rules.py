"""The chapter "Writing VJP rules": the built page shows the values the engine computes."""

from __future__ import annotations

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from bookkit import fmt_array
from bookkit.testing import table_rows


def test_minimal_rule_table_shows_cosines(text: str) -> None:
    rows = {row[0]: row for row in table_rows(text) if len(row) == 4}
    for point in [0.0, 0.5, 1.0, 2.0]:
        row = rows[f"{point:g}"]
        assert row[2] == row[3] == fmt_array(np.cos(point)), row


def test_binary_rule_table_has_each_cotangent_in_its_argument_shape(text: str) -> None:
    rows = [row for row in table_rows(text) if len(row) == 6 and row[-1] == "passed"]
    assert len(rows) == 4
    rng = np.random.default_rng(0)
    for row in rows:
        x_shape, y_shape = (eval(cell) for cell in row[:2])  # shapes as the page prints them
        x, y = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
        x_bar = make_vjp(lambda x, y=y: x * y)(x)[0](np.ones(np.broadcast_shapes(x_shape, y_shape)))
        y_bar = make_vjp(lambda y, x=x: x * y)(y)[0](np.ones(np.broadcast_shapes(x_shape, y_shape)))
        assert row[3] == str(np.shape(x_bar)) and row[4] == str(np.shape(y_bar)), row


def test_forgotten_unbroadcast_is_stopped_with_both_shapes(text: str) -> None:
    assert "ValueError: ad_core: the VJP rule of mul_no_unbroadcast for argument 1" in text
    assert "shape (2, 3), but that argument has shape (3,)" in text


def test_state_snapshot_shows_the_bias_gradient(text: str) -> None:
    batch = np.arange(6.0).reshape(2, 3)
    expected = grad(lambda b: anp.sum(batch * b))(np.array([10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(expected, batch.sum(axis=0))
    vjp_rows = [row for row in table_rows(text) if len(row) == 8 and row[1] == "vjp"]
    assert any(row[3] == "multiply" and row[5] == fmt_array(expected) for row in vjp_rows)
    assert any(row[1] == "unbroadcast" and row[7] == "sum_leading" for row in table_rows(text))


def test_none_rule_gives_zero_for_the_condition(text: str) -> None:
    rows = {row[0]: row for row in table_rows(text) if len(row) == 3}
    assert rows["condition"][2] == fmt_array(np.zeros(3))
    weights, condition = np.array([1.0, 10.0, 100.0]), np.array([1.0, 0.0, 1.0])
    expected = grad(lambda x: anp.sum(weights * anp.where(condition, x, 0.0)))(np.ones(3))
    assert rows["x"][2] == " ".join(fmt_array(expected).split())  # the page collapses spaces


def test_derivations_and_exercises_are_rendered(text: str) -> None:
    assert "comparisons passed" in text
    assert text.count("check_grads") >= 5
    assert "unbroadcast_f(y, lambda g: -g * x / y**2)" in text


def test_why_rules_use_anp(text: str) -> None:
    """A rule written with the ufunc `np.cos` can be differentiated again (the ufunc hands the
    box to `anp.cos`); one written with `np.dot` cannot. The page gives that reason."""
    import pytest

    from ad_core.extend import defvjp, primitive
    from ad_core.test_util import check_grads

    @primitive
    def sin_with_np_cos(x):
        return np.sin(x)

    defvjp(sin_with_np_cos, lambda ans, x: lambda g: g * np.cos(x))
    check_grads(sin_with_np_cos, modes=("rev",), order=2)(np.array([0.0, 0.5, 1.0]))

    @primitive
    def sin_with_np_dot(x):
        return np.sin(x)

    defvjp(sin_with_np_dot, lambda ans, x: lambda g: g * np.dot(1.0, np.cos(x)))
    with pytest.raises(TypeError, match="traced value"):
        grad(grad(sin_with_np_dot))(0.5)
    assert "would be traced too" in text and "refuse a box" in text


def test_my_sin_rule_is_a_named_maker(text: str) -> None:
    """The page may not call `my_sin`'s rule a lambda: the snippet defines a named maker."""
    from pathlib import Path

    snippet = Path(__file__).resolve().parents[2] / "snippets/vjp_rules/sin_rule_minimal.py"
    source = snippet.read_text(encoding="utf-8")
    assert "def my_sin_vjp_maker(ans, x):" in source and "defvjp(my_sin, my_sin_vjp_maker)" in source
    assert "rules are lambdas, like my_sin's" not in text
