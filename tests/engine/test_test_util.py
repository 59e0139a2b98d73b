"""`ad_core.test_util.check_grads`: it passes right rules, and fails on a wrong one naming the
argument, the mode and the order, at first and higher orders, for arrays and containers."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import ad_core
import ad_core.numpy as anp
from ad_core.extend import (
    defjvp,
    defvjp,
    getval,
    primitive,
)
from ad_core.test_util import check_grads


def test_check_grads_is_exported_at_the_top_level() -> None:
    assert ad_core.check_grads is check_grads


def numbers_after(label: str, message: str) -> np.ndarray:
    """The numbers printed on the line of `message` that starts with `label`."""
    line = next(line for line in message.splitlines() if line.strip().startswith(label))
    return np.array([float(token) for token in re.findall(r"[-+]?\d+\.?\d*(?:e[-+]?\d+)?", line)])


def test_check_grads_fails_on_a_wrong_vjp_and_says_where(rng) -> None:
    @primitive
    def sine_with_wrong_vjp(x):
        return np.sin(x)

    # The tempting slip: the derivative of sin written as sin.
    defvjp(sine_with_wrong_vjp, lambda ans, x: lambda g: g * np.sin(x))
    defjvp(sine_with_wrong_vjp, lambda g, ans, x: g * np.cos(x))
    x = rng.uniform(0.3, 1.2, size=3)

    check_grads(sine_with_wrong_vjp, modes=("fwd",), order=1)(x)  # the JVP is right
    with pytest.raises(AssertionError) as error:
        check_grads(sine_with_wrong_vjp, modes=("rev",), order=1)(x)
    message = str(error.value)
    assert "argument 0" in message
    assert "'rev'" in message
    assert "order 1" in message
    expected, computed = numbers_after("expected", message), numbers_after("computed", message)
    assert expected.size and computed.size, message
    assert not np.allclose(expected, computed, rtol=1e-3), "the two values shown must differ"


def test_check_grads_names_the_second_argument_and_forward_mode(rng) -> None:
    @primitive
    def scaled(x, factor):
        return x * factor

    defvjp(scaled, lambda ans, x, f: lambda g: g * f, lambda ans, x, f: lambda g: anp.sum(g * x))
    defjvp(scaled, lambda g, ans, x, f: g * f, lambda g, ans, x, f: 2.0 * g * x)  # wrong factor 2
    x, factor = rng.standard_normal(3), 1.5
    with pytest.raises(AssertionError) as error:
        check_grads(scaled, modes=("fwd", "rev"), order=1)(x, factor)
    message = str(error.value)
    assert "argument 1" in message
    assert "'fwd'" in message


def test_check_grads_catches_a_rule_that_is_only_wrong_at_second_order(rng) -> None:
    @primitive
    def frozen_square(x):
        return x**2

    # First derivative right, but computed on the raw value: it is a constant to the tracer,
    # so the second derivative comes out as zero instead of 2.
    defvjp(frozen_square, lambda ans, x: lambda g: g * 2.0 * getval(x))
    defjvp(frozen_square, lambda g, ans, x: g * 2.0 * getval(x))
    x = rng.uniform(0.5, 1.5, size=3)
    check_grads(frozen_square, modes=("rev",), order=1)(x)
    with pytest.raises(AssertionError) as error, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_grads(frozen_square, modes=("rev",), order=2)(x)
    assert "order 2" in str(error.value)


def test_check_grads_accepts_a_container(rng) -> None:
    params = {"w": rng.standard_normal((2, 3)), "b": rng.standard_normal(3)}
    check_grads(lambda p: anp.sum(anp.tanh(p["w"] + p["b"]) ** 2), modes=("rev",), order=1)(params)


def test_check_grads_goes_to_higher_orders_with_respect_to_nested_containers(rng) -> None:
    """The derivative with respect to a container is a container, which the operators now
    trace as one output: so check_grads recurses for containers as for arrays."""
    from ad_core.test_util import GradientCheckError

    params = [rng.standard_normal(3), (rng.standard_normal(2), {"w": rng.standard_normal((2, 2))})]

    def model(p):
        a, (b, d) = p
        return anp.sum(anp.tanh(a) ** 2) + anp.sum(b * anp.dot(d["w"], b)) + anp.sum(a[:2] * b)

    check_grads(model, modes=("fwd", "rev"), order=3)(params)

    @primitive
    def square(x):
        return x**2

    # The rule reads the raw value, so its own derivative is lost: only order 2 can tell.
    defvjp(square, lambda ans, x: lambda g: g * 2.0 * getval(x))
    defjvp(square, lambda g, ans, x: g * 2.0 * getval(x))
    check_grads(lambda p: anp.sum(square(p[0])), order=1)(params)
    with pytest.raises(GradientCheckError, match="order 2"):
        check_grads(lambda p: anp.sum(square(p[0])), order=2)(params)


# ---------------------------------------------------------------------------------------------
# compare_gradients: the reader's per-tensor check of a hand-written backward pass
# ---------------------------------------------------------------------------------------------


def _reference() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {"W": rng.standard_normal((3, 4)), "b": rng.standard_normal(4), "h": rng.standard_normal((2, 4))}


def test_compare_gradients_gives_each_verdict_in_reference_order() -> None:
    from ad_core.test_util import compare_gradients

    ref = _reference()
    mine = {"h": ref["h"] * (1 + 1e-9), "W": ref["W"].copy(), "b": ref["b"] + 1e-3}
    diffs = compare_gradients(mine, ref)
    assert [d.name for d in diffs] == ["W", "b", "h"]
    assert [d.verdict for d in diffs] == ["exact", "wrong", "approximate"]
    assert [d.exact for d in diffs] == [True, False, False]
    assert [d.approximate for d in diffs] == [True, False, True]
    assert diffs[0].max_abs_diff == 0.0
    assert diffs[1].max_abs_diff == pytest.approx(1e-3, rel=1e-9)
    assert diffs[2].max_abs_diff == pytest.approx(np.max(np.abs(ref["h"])) * 1e-9, rel=1e-6)


def test_compare_gradients_names_a_shape_mismatch_instead_of_broadcasting() -> None:
    from ad_core.test_util import compare_gradients, gradient_report

    ref = _reference()
    # (1, 4) broadcasts against (4,): np.allclose alone would call it close.
    assert np.allclose(ref["b"][None, :], ref["b"])
    diffs = compare_gradients({"W": ref["W"], "b": ref["b"][None, :], "h": ref["h"]}, ref)
    bad = diffs[1]
    assert (bad.verdict, bad.shape, bad.reference_shape) == ("shape mismatch", (1, 4), (4,))
    assert not bad.approximate
    report = gradient_report(diffs)
    assert "SHAPE MISMATCH: yours (1, 4), expected (4,)" in report
    assert report.splitlines()[-1] == "2 of 3 gradients agree; the first that does not: b (shape mismatch)"


def test_compare_gradients_reports_cells_not_filled_in_and_missing_names() -> None:
    from ad_core.test_util import compare_gradients, gradient_report

    ref = _reference()
    diffs = compare_gradients({"W": ..., "b": None}, ref)
    assert [d.verdict for d in diffs] == ["not filled in", "not filled in", "missing"]
    assert not any(d.ok for d in diffs)
    assert gradient_report(diffs).splitlines()[-1] == (
        "0 of 3 gradients agree; the first that does not: W (not filled in)"
    )


def test_compare_gradients_refuses_unknown_names_and_non_numeric_values() -> None:
    from ad_core.test_util import compare_gradients

    ref = _reference()
    with pytest.raises(ValueError, match=r"compare_gradients: argument `mine` has names .*\['dW'\]"):
        compare_gradients({"dW": ref["W"]}, ref)
    message = r"compare_gradients: argument `mine`, entry 'b'.*dtype <U3 of shape \(\)"
    with pytest.raises(TypeError, match=message):
        compare_gradients({"b": "0.1"}, ref)


def test_compare_gradients_default_tolerance_is_torch_allclose_default() -> None:
    """The docstring says the defaults are those of `torch.allclose` (PyTorch 2.13): entries on
    each side of the boundary atol + rtol * |r| get the same verdict from both."""
    torch = pytest.importorskip("torch")
    from ad_core.test_util import compare_gradients

    reference = np.array([0.0, 1.0, 100.0])
    for factor in (0.9, 1.1):
        offsets = factor * (1e-8 + 1e-5 * np.abs(reference))
        for i in range(reference.size):
            mine = reference.copy()
            mine[i] += offsets[i]
            ours = compare_gradients({"x": mine}, {"x": reference})[0].approximate
            theirs = bool(torch.allclose(torch.tensor(mine), torch.tensor(reference)))
            assert ours == theirs == (factor < 1), (factor, i)
