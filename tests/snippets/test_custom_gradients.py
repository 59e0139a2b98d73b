"""The chapter "Gradients that are not the derivative": what PyTorch 2.13 and JAX return at the
non-differentiable points the page tabulates, run here with the real libraries (the book builds
with NumPy alone, so the snippet records their values and this file checks them)."""

from __future__ import annotations

import numpy as np
import pytest

from bookkit import load_snippet_module

points = load_snippet_module("snippets/custom_gradients/nondifferentiable_points.py")


def _code(values) -> str:
    values = np.atleast_1d(np.asarray(values, dtype=float))
    inner = ", ".join(f"{v:g}" for v in values)
    return f"`[{inner}]`" if values.size > 1 else f"`{inner}`"


def test_pytorch_at_nondifferentiable_points() -> None:
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13")

    def grad_of(fun, value):
        x = torch.tensor(value, dtype=torch.float64, requires_grad=True)
        fun(x).backward()
        return x.grad.numpy()

    tie = points.tie.tolist()
    full_max = grad_of(lambda x: x.max(), tie)
    indexed_max = grad_of(lambda x: x.max(dim=0).values, tie)
    at_abs = grad_of(torch.abs, 0.0)
    at_maximum = grad_of(lambda x: torch.maximum(x, torch.zeros((), dtype=torch.float64)), 0.0)
    at_relu = grad_of(torch.relu, 0.0)
    recorded = points.OTHER_SYSTEMS[points.PYTORCH]
    assert recorded[0] == f"{_code(full_max)} (`x.max()`); {_code(indexed_max)} (`x.max(dim=0)`)"
    assert recorded[1] == _code(at_abs)
    assert recorded[2] == f"{_code(at_maximum)}; `relu`: {_code(at_relu)}"
    np.testing.assert_array_equal(full_max, [0.0, 0.5, 0.5])  # split, as ad_core does


def test_jax_at_nondifferentiable_points() -> None:
    jax = pytest.importorskip("jax")
    assert jax.__version__ == "0.10.2"
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    recorded = points.OTHER_SYSTEMS[points.JAX]
    assert recorded[0] == _code(jax.grad(jnp.max)(jnp.asarray(points.tie)))
    assert recorded[1] == _code(jax.grad(jnp.abs)(0.0))
    assert recorded[2] == (f"{_code(jax.grad(lambda x: jnp.maximum(x, 0.0))(0.0))}; "
                           f"`jax.nn.relu`: {_code(jax.grad(jax.nn.relu)(0.0))}")


def test_relu_identity_at_zero_in_pytorch_and_jax() -> None:
    """relu(x) - relu(-x) at 0: the values the page records for PyTorch 2.13 and JAX 0.10.2."""
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    (torch.relu(x) - torch.relu(-x)).backward()
    assert x.grad.item() == points.IDENTITY_AT_ZERO[points.PYTORCH]
    jax.config.update("jax_enable_x64", True)
    at_zero = jax.grad(lambda v: jax.nn.relu(v) - jax.nn.relu(-v))(0.0)
    assert float(at_zero) == points.IDENTITY_AT_ZERO[points.JAX]


def test_page_shows_the_engine_conventions_and_the_safe_norm(text: str) -> None:
    # The engine's column, from the conventions computed here: split a tie, sign(0), half.
    assert "| max(x) at a tie | [0. 0.5 0.5] |" in text
    assert f"| abs(x) at zero | {np.sign(0.0)} |" in text
    assert "| maximum(x, 0.0) at zero | 0.5 |" in text
    # The norm at the origin: nan through the body's rules and the unguarded formula, 0 guarded.
    assert "| [0. 0.] | 0.0 | [nan nan] | [nan nan] | [0. 0.]" in text
