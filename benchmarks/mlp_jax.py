"""The makemore MLP step under `jax.jit(jax.value_and_grad(loss))`, float64, when JAX is installed.

The loss is `mlp_model.make_loss(jax.numpy)`: the same Python function as the ad_core and
HIPS/autograd columns, with only the NumPy module swapped. Two ways to call it, as measured in
the staging issue: with the parameters and the batch already JAX arrays on the device, and with
NumPy arrays, which JAX converts on every call. Each step waits for its results
(`jax.block_until_ready`), so asynchronous dispatch does not hide the work.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
from mlp_model import make_loss

Step = Callable[[], tuple[object, list]]


def load() -> tuple[ModuleType | None, str]:
    """Import JAX in float64 on one CPU thread, or say why not."""
    try:
        import jax
    except ImportError as error:
        return None, f"not importable ({error}); `pip install -e '.[bench]'` adds the columns"
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    return jax, f"jax {jax.__version__}, float64 (jax_enable_x64), CPU, XLA intra-op threads 1"


def make_steps(jax: ModuleType, params: list[np.ndarray], windows: np.ndarray,
               targets: np.ndarray) -> dict[str, Step]:
    """`jax.jit(jax.value_and_grad(loss))`, called with device arrays and with NumPy arrays."""
    import jax.numpy as jnp

    step = jax.jit(jax.value_and_grad(make_loss(jnp)))
    device_args = jax.device_put((list(params), windows, targets))

    def with_jax_arrays() -> tuple[object, list]:
        loss, grads = jax.block_until_ready(step(*device_args))
        return loss, list(grads)

    def with_numpy_arrays() -> tuple[object, list]:
        loss, grads = jax.block_until_ready(step(params, windows, targets))
        return loss, list(grads)

    return {"jax.jit, JAX arrays": with_jax_arrays, "jax.jit, NumPy arrays": with_numpy_arrays}
