"""The Part III network's loss as a function of its parameters, in float32 or float64, and the
central differences a gradient check computes on it."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from bookkit import load_snippet_module

worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
model = worked.model
example = worked.worked_example()
PARAM_NAMES = model.PARAM_NAMES
# The rtol of a check in each type: a fixed choice, 5 to 50 times the type's best median relative
# error of a central difference (step_size_by_dtype.py measures that error and fails outside the
# range; the error depends on the OpenBLAS kernel, so a rounded multiple of it is not a constant).
RTOL = {np.float32: 5e-4, np.float64: 1e-9}


def loss(params: Mapping[str, np.ndarray], dtype: type = np.float64) -> float:
    """The minibatch loss with every parameter (and so every operation) in ``dtype``."""
    cast = {name: np.asarray(value, dtype=dtype) for name, value in params.items()}
    value = model.forward(cast, example.Xb, example.Yb)["loss"]
    assert value.dtype == dtype, value.dtype
    return float(value)


def random_unit_direction(seed: int) -> dict[str, np.ndarray]:
    """A direction in parameter space, normal entries scaled to unit Euclidean length."""
    rng = np.random.default_rng(seed)
    direction = {name: rng.standard_normal(example.params[name].shape) for name in PARAM_NAMES}
    length = np.sqrt(sum(float(np.sum(v**2)) for v in direction.values()))
    return {name: v / length for name, v in direction.items()}


def directional_difference(direction: Mapping[str, np.ndarray], step: float, dtype: type) -> float:
    """(L(x + h d) - L(x - h d)) / 2h with x + h d formed and the loss computed in ``dtype``."""
    h = dtype(step)
    plus = {n: example.params[n].astype(dtype) + h * direction[n].astype(dtype) for n in PARAM_NAMES}
    minus = {n: example.params[n].astype(dtype) - h * direction[n].astype(dtype) for n in PARAM_NAMES}
    return (loss(plus, dtype) - loss(minus, dtype)) / (2 * step)


def directional_exact(direction: Mapping[str, np.ndarray], gradients: Mapping[str, np.ndarray]) -> float:
    """<gradient, direction>: what the difference estimates, from the engine's float64 gradient."""
    return float(sum(np.sum(gradients[n] * direction[n]) for n in PARAM_NAMES))


def entry_differences(name: str, step: float, dtype: type = np.float64) -> np.ndarray:
    """The central difference of the loss for every entry of the parameter ``name``."""
    base = {n: example.params[n].astype(dtype) for n in PARAM_NAMES}
    out = np.zeros(base[name].shape)
    for index in np.ndindex(base[name].shape):
        plus, minus = base[name].copy(), base[name].copy()
        plus[index] += dtype(step)
        minus[index] -= dtype(step)
        out[index] = (loss({**base, name: plus}, dtype) - loss({**base, name: minus}, dtype)) / (2 * step)
    return out
