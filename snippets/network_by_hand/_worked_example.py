"""The minibatch both Part III chapters compare on: every gradient by hand and from an engine.

`engine_gradients` asks an autodiff engine (``ad_core`` on the pages, another one in the tests)
for the total derivative of the loss with respect to each named tensor; `central_difference_agrees`
and `predicted_bit_equal` are the independent checks of a comparison table's "approximate" and
"bit-equal" columns (the table itself is `bookkit.gradient_comparison`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from bookkit import load_snippet_module

model = load_snippet_module(Path(__file__).with_name("_model.py"))
by_hand = load_snippet_module(Path(__file__).with_name("_backward.py"))
forward = model.forward


def engine_gradients(
    params: Mapping[str, np.ndarray],
    Xb: np.ndarray,
    Yb: np.ndarray,
    names: tuple[str, ...],
    grad: Callable[..., Callable[..., Any]],
    xp: ModuleType,
) -> dict[str, np.ndarray]:
    """The engine's gradient of the loss with respect to each named tensor.

    For each name the loss is rewritten as a function of that one tensor (``forward`` with
    ``replace``), so the engine sums every path from the tensor to the loss, as the hand-written
    backward pass must.  ``grad``/``xp`` are ``ad_core.grad``/``ad_core.numpy`` in the book, and
    may be another engine's in the tests.
    """
    cache = forward(params, Xb, Yb)
    values = {**params, **cache}
    result: dict[str, np.ndarray] = {}
    for name in names:

        def loss_of(value: Any, name: str = name) -> Any:
            return forward(params, Xb, Yb, xp=xp, replace={name: value})["loss"]

        result[name] = np.asarray(grad(loss_of)(values[name]))
    return result



def predicted_bit_equal(name: str, batch_size: int) -> bool:
    """What the pages' explanation predicts for a "bit-equal" cell, without looking at bits.

    Only one hand-written line does different floating-point operations from ``ad_core``'s rule:
    the log step, ``(1.0 / probs) * dlogprobs`` (two roundings) against ``g / x`` (one). Every
    non-zero entry of ``dlogprobs`` is ``-1 / batch_size``; when that is a power of two the
    product is exact and both round ``1 / probs`` alike, so every gradient is bit-equal. Otherwise
    only ``dlogprobs``, computed before that line, is.
    """
    power_of_two = batch_size > 0 and batch_size & (batch_size - 1) == 0
    return power_of_two or name == "logprobs"


def central_difference_agrees(
    params: Mapping[str, np.ndarray],
    Xb: np.ndarray,
    Yb: np.ndarray,
    name: str,
    gradient: np.ndarray,
    seed: int = 0,
    step: float = 1e-5,
) -> bool:
    """Whether ``gradient`` (of the loss with respect to the tensor ``name``) agrees with a float64
    central difference of the loss along one random direction: the independent check of the
    "approximate" column. Relative tolerance 1e-6 (truncation is of order ``step**2``), plus
    1e-9 absolute for gradients that are zero up to rounding (rounding in the difference is of
    order 1e-16 / ``step``)."""
    values = {**params, **forward(params, Xb, Yb)}
    value = np.asarray(values[name], dtype=float)
    direction = np.random.default_rng(seed).standard_normal(value.shape)

    def loss(shifted: np.ndarray) -> float:
        return float(forward(params, Xb, Yb, replace={name: shifted})["loss"])

    numeric = (loss(value + step * direction) - loss(value - step * direction)) / (2 * step)
    analytic = float(np.sum(np.asarray(gradient).reshape(value.shape) * direction))
    return abs(numeric - analytic) <= 1e-6 * abs(analytic) + 1e-9



@dataclass(frozen=True)
class WorkedExample:
    """One seeded minibatch at the initial parameters, with every gradient computed two ways."""

    params: dict[str, np.ndarray]
    Xb: np.ndarray
    Yb: np.ndarray
    cache: dict[str, np.ndarray]
    hand: dict[str, np.ndarray]
    engine: dict[str, np.ndarray]

    @property
    def batch_size(self) -> int:
        return int(self.Xb.shape[0])

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of every tensor the tables name (a gradient must have its tensor's shape)."""
        return {name: np.shape({**self.params, **self.cache}[name]) for name in self.engine}

    def central_differences_agree(self, names: tuple[str, ...]) -> dict[str, bool]:
        """`central_difference_agrees` for the hand-written gradient of each of `names`."""
        return {
            name: central_difference_agrees(self.params, self.Xb, self.Yb, name, self.hand[name], seed=i)
            for i, name in enumerate(names)
        }


@functools.cache
def worked_example(
    batch_seed: int = 0, batch_size: int = model.BATCH_SIZE, log_step: str = "reciprocal"
) -> WorkedExample:
    """The chapters' minibatch (``batch_size`` windows drawn with ``batch_seed``); the engine's
    gradients come from ``ad_core``. Cached per build."""
    import ad_core.numpy as anp
    from ad_core import grad

    params = model.init_params()
    Xb, Yb = model.sample_batch(batch_seed, batch_size=batch_size)
    cache = forward(params, Xb, Yb)
    hand = by_hand.backward_by_hand(params, cache, Xb, Yb, log_step=log_step)
    engine = engine_gradients(params, Xb, Yb, model.LOSS_TO_HPREACT + model.HPREACT_TO_INPUT, grad, anp)
    return WorkedExample(params, Xb, Yb, cache, hand, engine)

