"""The makemore MLP written once, the way a user of a NumPy-wrapping autodiff library writes it.

`make_loss(anp)` takes the wrapped NumPy module (`ad_core.numpy` or `autograd.numpy`), so ad_core
and HIPS/autograd differentiate exactly the same Python code: only the import differs.
Data and parameters live here too, so every implementation in the benchmark sees the same arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

VOCAB_SIZE = 27
BLOCK_SIZE = 3
N_EMBD = 10
BN_EPS = 1e-5

# Order of the parameter list every implementation takes and returns gradients in.
PARAM_NAMES = ("C", "W1", "bngain", "bnbias", "W2", "b2")


@dataclass(frozen=True)
class Config:
    """One benchmark setting: batch size and hidden width (the rest is fixed by makemore)."""

    batch_size: int
    n_hidden: int

    @property
    def label(self) -> str:
        return f"batch {self.batch_size}, n_hidden {self.n_hidden}"


def make_params(config: Config, seed: int = 2026) -> list[np.ndarray]:
    """Float64 parameters in PARAM_NAMES order, scaled as in makemore part 3.

    Gain and biases get small random perturbations instead of exact ones and zeros, so a
    backward pass that forgets a term cannot hide behind a special initial value.
    """
    rng = np.random.default_rng(seed)
    fan_in = BLOCK_SIZE * N_EMBD
    n_hidden = config.n_hidden
    embedding = rng.standard_normal((VOCAB_SIZE, N_EMBD))
    w1 = rng.standard_normal((fan_in, n_hidden)) * (5 / 3) / np.sqrt(fan_in)
    bngain = 1.0 + 0.1 * rng.standard_normal((1, n_hidden))
    bnbias = 0.1 * rng.standard_normal((1, n_hidden))
    w2 = rng.standard_normal((n_hidden, VOCAB_SIZE)) * 0.1
    b2 = rng.standard_normal(VOCAB_SIZE) * 0.1
    return [embedding, w1, bngain, bnbias, w2, b2]


def make_batch(config: Config, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Token windows cut from one seeded random token stream: inputs (B, 3), targets (B,).

    Overlapping windows repeat tokens inside a batch, which is what makes the embedding
    gradient need accumulation (np.add.at) rather than plain assignment.
    """
    rng = np.random.default_rng(seed)
    stream = rng.integers(0, VOCAB_SIZE, size=config.batch_size + BLOCK_SIZE)
    starts = np.arange(config.batch_size)[:, None]
    windows = stream[starts + np.arange(BLOCK_SIZE)]
    targets = stream[BLOCK_SIZE : BLOCK_SIZE + config.batch_size]
    return windows, targets


def make_loss(anp: ModuleType) -> Callable[[list, np.ndarray, np.ndarray], object]:
    """Return loss(params, windows, targets) built on the wrapped NumPy module `anp`."""

    def loss(params: list, windows: np.ndarray, targets: np.ndarray) -> object:
        embedding, w1, bngain, bnbias, w2, b2 = params
        batch_size = windows.shape[0]
        emb = embedding[windows]  # (B, 3, 10)
        embcat = anp.reshape(emb, (batch_size, -1))  # (B, 30)
        # No bias before BatchNorm: the batch mean would subtract it right away.
        hprebn = anp.dot(embcat, w1)
        bnmean = anp.mean(hprebn, axis=0, keepdims=True)
        bnvar = anp.var(hprebn, axis=0, ddof=1, keepdims=True)
        hpreact = bngain * (hprebn - bnmean) / anp.sqrt(bnvar + BN_EPS) + bnbias
        h = anp.tanh(hpreact)
        logits = anp.dot(h, w2) + b2
        shifted = logits - anp.max(logits, axis=1, keepdims=True)
        log_norm = anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        logprobs = shifted - log_norm
        return -anp.mean(logprobs[np.arange(batch_size), targets])

    return loss


def param_shapes(config: Config) -> list[tuple[int, ...]]:
    return [p.shape for p in make_params(config)]


def flatten(params: list[np.ndarray]) -> np.ndarray:
    """All parameters as one vector, in PARAM_NAMES order."""
    return np.concatenate([np.ravel(p) for p in params])


def unflatten(anp: ModuleType, theta: object, shapes: list[tuple[int, ...]]) -> list:
    """Slice a parameter vector back into arrays; works on boxes, so gradients flow through."""
    arrays, start = [], 0
    for shape in shapes:
        stop = start + int(np.prod(shape))
        arrays.append(anp.reshape(theta[start:stop], shape))
        start = stop
    return arrays


def make_flat_loss(anp: ModuleType, config: Config) -> Callable[[np.ndarray, np.ndarray, np.ndarray], object]:
    """loss(theta, windows, targets) for engines whose grad takes one array, not a list.

    The same `make_loss` model behind a slicing prologue: this is what a user has to write
    when the library cannot differentiate with respect to a list of arrays.
    """
    loss = make_loss(anp)
    shapes = param_shapes(config)

    def flat_loss(theta: np.ndarray, windows: np.ndarray, targets: np.ndarray) -> object:
        return loss(unflatten(anp, theta, shapes), windows, targets)

    return flat_loss
