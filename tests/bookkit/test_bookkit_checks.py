"""Derivation and assert_shape_then_close: they pass true statements and catch false ones."""

from __future__ import annotations

import numpy as np
import pytest

from bookkit import Derivation, assert_shape_then_close


def test_assert_shape_then_close_checks_shape_before_values() -> None:
    with pytest.raises(AssertionError, match=r"shape \(3,\) differs from expected \(2, 3\)"):
        assert_shape_then_close(np.ones(3), np.ones((2, 3)))
    with pytest.raises(AssertionError):
        assert_shape_then_close(np.ones(3), np.ones(3) + 1e-6)
    assert_shape_then_close(np.ones(3), np.ones(3) + 1e-14)


def _sum_of_squares() -> Derivation:
    derivation = Derivation(lambda rng: {"x": rng.standard_normal(4)})
    derivation.step(r"\nabla_x \sum_i x_i^2 &= \left[2x_i\right]_i", lambda v: 2 * v["x"])
    derivation.step(r"&= 2x", lambda v: v["x"] + v["x"])
    return derivation


def test_derivation_renders_after_checking_every_line() -> None:
    derivation = _sum_of_squares()
    text = derivation.render(trials=4)
    assert derivation.checks == 4
    assert text.startswith("$$\n\\begin{aligned}\n") and text.endswith("\\end{aligned}\n$$\n")
    assert " \\\\\n" in text


def test_derivation_catches_a_wrong_line() -> None:
    derivation = _sum_of_squares().step(r"&= x", lambda v: v["x"])
    with pytest.raises(AssertionError, match="does not equal the line before"):
        derivation.render()


def test_derivation_catches_a_wrong_shape() -> None:
    derivation = _sum_of_squares().step(r"&= 2x^\top", lambda v: 2 * v["x"][None, :])
    with pytest.raises(AssertionError, match="shape"):
        derivation.render()


def test_derivation_refuses_float32_inputs() -> None:
    derivation = Derivation(lambda rng: {"x": rng.standard_normal(3).astype(np.float32)})
    derivation.step("a &= x", lambda v: v["x"]).step("&= x", lambda v: v["x"])
    with pytest.raises(TypeError, match="float64"):
        derivation.render()


def test_derivation_inputs_are_seeded() -> None:
    seen = []
    derivation = Derivation(lambda rng: {"x": rng.standard_normal(2)})
    derivation.step("a &= x", lambda v: seen.append(v["x"]) or v["x"]).step("&= x", lambda v: v["x"])
    derivation.render(trials=2)
    derivation.render(trials=2)
    np.testing.assert_array_equal(seen[0], seen[2])
    assert not np.array_equal(seen[0], seen[1])


def test_central_differences_is_the_gradient_in_the_shape_of_x() -> None:
    from bookkit import central_differences

    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]])
    gradient = central_differences(lambda v: float(np.sum(v**3)), x)
    assert gradient.shape == x.shape and gradient.dtype == np.float64
    np.testing.assert_allclose(gradient, 3 * x**2, rtol=1e-8, atol=1e-8)
    # Integer input is taken as float, so a step of 1e-6 is not rounded away.
    np.testing.assert_allclose(central_differences(lambda v: float(v @ v), np.array([1, 2])), [2.0, 4.0])
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(central_differences(np.sum, x), 2 * x)
