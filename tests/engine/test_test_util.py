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
