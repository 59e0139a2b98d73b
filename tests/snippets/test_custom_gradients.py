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


def test_page_shows_the_engine_conventions_and_the_declared_softplus(text: str) -> None:
    assert "| `max(x)` at a tie | `[0.  0.5 0.5]` |" in text or "[0.  0.5 0.5]" in text
    rules = load_snippet_module("snippets/custom_gradients/_rules.py")
    from ad_core import grad

    assert grad(rules.softplus)(1000.0) == 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(grad(rules.naive_softplus)(1000.0))
    assert "nan" in text and "grad(grad(softplus))" in text
