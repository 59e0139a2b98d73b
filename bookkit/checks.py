"""Checks a snippet runs before it prints: shape-then-value comparison, checked derivations."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from . import _stats
from .claims import Rendered
from .formatting import fmt_shape

DEFAULT_DERIVATION_SEED = 20261129


def assert_shape_then_close(actual: Any, expected: Any, rtol: float = 1e-12, atol: float = 0.0) -> None:
    """Assert that `actual` has the shape of `expected`, then that the values are close.

    The shape is checked first and on its own, because NumPy broadcasting would let a `(3,)`
    result pass as close to a `(2, 3)` one.
    """
    _compare(actual, expected, rtol, atol)
    _stats.count("assert_shape_then_close")


def _compare(actual: Any, expected: Any, rtol: float, atol: float) -> None:
    actual_shape, expected_shape = np.shape(actual), np.shape(expected)
    if actual_shape != expected_shape:
        raise AssertionError(
            f"shape {fmt_shape(actual_shape)} differs from expected {fmt_shape(expected_shape)}"
        )
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)



def central_differences(fun: Callable[[np.ndarray], Any], x: Any, step: float = 1e-6) -> np.ndarray:
    """The gradient of the scalar function `fun` at `x` by central differences, entry by entry:
    `(fun(x + step e_i) - fun(x - step e_i)) / (2 step)`, in the shape of `x` (as float64).

    The independent oracle the snippets check the engine against: it never calls the engine's
    differentiation, only `fun`."""
    x = np.asarray(x, dtype=float)
    gradient = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        shift = np.zeros_like(x)
        shift[index] = step
        gradient[index] = (fun(x + shift) - fun(x - shift)) / (2 * step)
    return gradient


class Derivation:
    """A displayed derivation whose every line is evaluated before it is shown.

    ```python
    d = Derivation(lambda rng: {"x": rng.standard_normal(3)})
    d.step(r"\\frac{d}{dx}\\sum_i x_i^2 &= \\left[2 x_i\\right]_i", lambda v: 2 * v["x"])
    d.step(r"&= 2x", lambda v: 2 * v["x"])
    print(d.render())
    ```

    `render` draws inputs with `make_inputs(rng)` (one seeded generator for all trials), checks
    that floating inputs are float64, evaluates every line, and asserts each line has the shape
    of the previous one and the same values; only then does it return the LaTeX.
    """

    def __init__(
        self,
        make_inputs: Callable[[np.random.Generator], Mapping[str, Any]],
        seed: int = DEFAULT_DERIVATION_SEED,
    ) -> None:
        self.make_inputs = make_inputs
        self.seed = seed
        self.lines: list[tuple[str, Callable[[Mapping[str, Any]], Any]]] = []
        self.checks = 0

    def step(self, latex: str, evaluate: Callable[[Mapping[str, Any]], Any]) -> Derivation:
        """Add one line: its LaTeX (with `&` where lines align) and a function of the inputs
        that computes what the line says. Returns the derivation, so calls can chain."""
        self.lines.append((latex, evaluate))
        return self

    def check(self, trials: int = 3, rtol: float = 1e-10, atol: float | None = None) -> int:
        """Evaluate every line on `trials` random inputs and compare neighbours; return the
        number of comparisons that passed. `atol` defaults to `rtol` times the largest
        magnitude of the earlier line, so that cancellation near zero is not a failure."""
        if len(self.lines) < 2:
            raise ValueError("a derivation needs at least two lines to compare")
        if trials < 1:
            raise ValueError("trials must be at least 1")
        rng = np.random.default_rng(self.seed)
        passed = 0
        for trial in range(trials):
            inputs = self.make_inputs(rng)
            for name, value in inputs.items():
                dtype = np.asarray(value).dtype
                if np.issubdtype(dtype, np.floating) and dtype != np.float64:
                    raise TypeError(f"input {name!r} is {dtype}, derivations check in float64")
            previous_latex, previous = None, None
            for latex, evaluate in self.lines:
                value = np.asarray(evaluate(inputs))
                if previous is not None:
                    tolerance = rtol * float(np.max(np.abs(previous), initial=1.0))
                    try:
                        _compare(value, previous, rtol, tolerance if atol is None else atol)
                    except AssertionError as error:
                        raise AssertionError(
                            f"derivation line {latex!r} does not equal the line before it "
                            f"({previous_latex!r}) on trial {trial}: {error}"
                        ) from error
                    passed += 1
                previous_latex, previous = latex, value
        self.checks = passed
        _stats.count("derivation_lines", passed)
        return passed

    def render(self, trials: int = 3, rtol: float = 1e-10, atol: float | None = None) -> Rendered:
        """Check the derivation, then return it as display math (`$$\\begin{aligned}...$$`)."""
        self.check(trials=trials, rtol=rtol, atol=atol)
        body = " \\\\\n".join(latex for latex, _ in self.lines)
        return Rendered("$$\n\\begin{aligned}\n" + body + "\n\\end{aligned}\n$$\n")
