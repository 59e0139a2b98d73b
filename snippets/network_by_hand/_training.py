"""Training the Part III network with its hand-written backward pass only, then sampling names.

Inference runs BatchNorm with frozen statistics (`logits_with_frozen_batchnorm`): the running
estimates kept during training, or statistics calibrated on the whole training set afterwards.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bookkit import load_snippet_module

model = load_snippet_module(Path(__file__).with_name("_model.py"))
by_hand = load_snippet_module(Path(__file__).with_name("_backward.py"))
names_data = model.names_data
# Plain names, because the page shows the training loop that uses them.
forward, backward_by_hand, make_splits = model.forward, by_hand.backward_by_hand, names_data.make_splits
PARAM_NAMES, BATCH_SIZE, N_HIDDEN = model.PARAM_NAMES, model.BATCH_SIZE, model.N_HIDDEN
BN_EPS, BN_MOMENTUM = model.BN_EPS, model.BN_MOMENTUM


def logits_with_frozen_batchnorm(
    params: Mapping[str, np.ndarray], X: np.ndarray, bnmean: np.ndarray, bnvar: np.ndarray
) -> np.ndarray:
    """Inference-mode forward pass: BatchNorm uses the given statistics, not the batch's."""
    emb = params["C"][X]
    hprebn = emb.reshape(X.shape[0], -1) @ params["W1"] + params["b1"]
    bnraw = (hprebn - bnmean) * (bnvar + BN_EPS) ** -0.5
    h = np.tanh(params["bngain"] * bnraw + params["bnbias"])
    return h @ params["W2"] + params["b2"]


def cross_entropy(logits: np.ndarray, Y: np.ndarray) -> float:
    """Mean softmax cross-entropy, computed the stable way (log-sum-exp)."""
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_norm = np.log(np.sum(np.exp(shifted), axis=1))
    return float(np.mean(log_norm - shifted[np.arange(len(Y)), Y]))


def calibrate_batchnorm(params: Mapping[str, np.ndarray], X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and Bessel-corrected variance of the BatchNorm input over the whole set ``X``."""
    hprebn = params["C"][X].reshape(X.shape[0], -1) @ params["W1"] + params["b1"]
    return hprebn.mean(0, keepdims=True), hprebn.var(0, ddof=1, keepdims=True)


def evaluate_loss(
    params: Mapping[str, np.ndarray],
    X: np.ndarray,
    Y: np.ndarray,
    bnmean: np.ndarray,
    bnvar: np.ndarray,
) -> float:
    """Loss of the whole set with frozen BatchNorm statistics (no batch dependence)."""
    return cross_entropy(logits_with_frozen_batchnorm(params, X, bnmean, bnvar), Y)


@dataclass(frozen=True)
class TrainingRun:
    """The result of a short training run with the hand-written backward pass."""

    params: dict[str, np.ndarray]
    losses: np.ndarray
    learning_rates: np.ndarray
    running_mean: np.ndarray
    running_var: np.ndarray
    steps: int
    seed: int
    # (step, validation loss) with the running BatchNorm estimates of that step: cheap enough to
    # record often (a calibration pass over the training set at every checkpoint is not)
    checkpoints: tuple[tuple[int, float], ...]
    # (step, parameters, running mean, running variance) at each checkpoint, for checks
    snapshots: tuple[tuple[int, dict[str, np.ndarray], np.ndarray, np.ndarray], ...] = ()


@functools.cache
def train_by_hand(
    steps: int = 3000, seed: int = 7, lr: float = 0.1, checkpoint_every: int = 250
) -> TrainingRun:
    """Seeded SGD on minibatches of ``BATCH_SIZE`` using ``backward_by_hand`` only.

    Cached so that the several snippets of one build that show this run train only once; the
    arrays it returns must not be mutated.
    """
    splits = make_splits()
    params = model.init_params()
    rng = np.random.default_rng(seed)
    losses = np.empty(steps)
    rates = np.empty(steps)
    running_mean = np.zeros((1, N_HIDDEN))
    running_var = np.ones((1, N_HIDDEN))
    checkpoints = []
    snapshots = []

    def checkpoint(step: int) -> None:
        val = evaluate_loss(params, splits.Xva, splits.Yva, running_mean, running_var)
        checkpoints.append((step, val))
        snapshots.append((step, {k: v.copy() for k, v in params.items()}, running_mean, running_var))

    # --8<-- [start:training_loop]
    for step in range(steps):
        if step % checkpoint_every == 0:
            checkpoint(step)
        index = rng.integers(0, splits.Xtr.shape[0], size=BATCH_SIZE)
        Xb, Yb = splits.Xtr[index], splits.Ytr[index]
        cache = forward(params, Xb, Yb)
        grads = backward_by_hand(params, cache, Xb, Yb)
        rate = lr if step < steps * 2 // 3 else lr / 10  # one step decay
        for name in PARAM_NAMES:
            params[name] -= rate * grads[name].reshape(params[name].shape)
        # running estimates, as a BatchNorm layer keeps them during training
        running_mean = (1 - BN_MOMENTUM) * running_mean + BN_MOMENTUM * cache["bnmeani"]
        running_var = (1 - BN_MOMENTUM) * running_var + BN_MOMENTUM * cache["bnvar"]
        losses[step], rates[step] = cache["loss"], rate
    # --8<-- [end:training_loop]
    checkpoint(steps)
    return TrainingRun(
        params, losses, rates, running_mean, running_var, steps, seed, tuple(checkpoints), tuple(snapshots)
    )


def sample_names(
    params: Mapping[str, np.ndarray],
    bnmean: np.ndarray,
    bnvar: np.ndarray,
    count: int,
    seed: int = 11,
) -> list[str]:
    """Draw names one character at a time from the trained model (frozen BatchNorm)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        context = [0] * model.BLOCK_SIZE
        chars = []
        while True:
            logits = logits_with_frozen_batchnorm(params, np.array([context]), bnmean, bnvar)[0]
            p = np.exp(logits - logits.max())
            p /= p.sum()
            index = int(rng.choice(model.VOCAB_SIZE, p=p))
            if index == 0 or len(chars) >= 20:
                break
            chars.append(model.ALPHABET[index])
            context = [*context[1:], index]
        out.append("".join(chars))
    return out



def evaluate_loss_atomic(
    params: Mapping[str, np.ndarray],
    X: np.ndarray,
    Y: np.ndarray,
    bnmean: np.ndarray,
    bnvar: np.ndarray,
) -> float:
    """`evaluate_loss` computed another way, for checks: the atomic ``forward`` with the batch
    statistics replaced by the frozen ones, and the loss by the atomic softmax chain instead of
    log-sum-exp."""
    return float(forward(params, X, Y, replace={"bnmeani": bnmean, "bnvar": bnvar})["loss"])

