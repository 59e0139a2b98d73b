"""Hidden helper: softmax, log-softmax, log-sum-exp and the cross-entropy variants, built from
`ad_core.numpy` primitives (the engine has no softmax primitive), and the closed-form gradients
the chapter derives, in plain NumPy.

Loaded by snippets and by tests/snippets/test_softmax.py through `bookkit.load_snippet_module`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ad_core.numpy as anp

# --- Built from engine primitives (traceable) -----------------------------------------------


# --8<-- [start:atomic]
def softmax(z: Any) -> Any:
    """Row-wise softmax over the last axis, shifted by the row maximum."""
    counts = anp.exp(z - anp.max(z, axis=-1, keepdims=True))
    return counts / anp.sum(counts, axis=-1, keepdims=True)


def atomic_log_softmax(z: Any) -> Any:
    """log(softmax(z)): the backward pass goes through `log`, whose rule divides by p."""
    return anp.log(softmax(z))
# --8<-- [end:atomic]


# --8<-- [start:fused]
def logsumexp(z: Any) -> Any:
    """log Σ_j e^{z_j} over the last axis, stably: m + log Σ_j e^{z_j - m}."""
    m = anp.max(z, axis=-1, keepdims=True)
    return (m + anp.log(anp.sum(anp.exp(z - m), axis=-1, keepdims=True)))[..., 0]


def log_softmax(z: Any) -> Any:
    """z - logsumexp(z): never forms a probability, never takes log of one."""
    return z - logsumexp(z)[..., None]
# --8<-- [end:fused]


# --8<-- [start:variants]
def cross_entropy(z, y, label_smoothing=0.0, weight=None, ignore_index=-100):
    """Mean cross-entropy of logits z (B, V) against labels y (B,), as PyTorch defines it for
    one option at a time: smoothing mixes the one-hot target with the uniform one; a weighted
    mean divides by the weights of the targets; ignored rows count neither above nor below."""
    V = z.shape[1]
    kept = y != ignore_index                                  # (B,) bool
    safe_y = np.where(kept, y, 0)                             # any valid class; masked below
    w = np.ones(V) if weight is None else weight              # (V,)
    row_weight = w[safe_y] * kept                             # (B,)
    target = (1 - label_smoothing) * np.eye(V)[safe_y] + label_smoothing / V   # (B, V)
    per_row = -anp.sum(target * log_softmax(z), axis=1)       # (B,)
    return anp.sum(row_weight * per_row) / np.sum(row_weight)
# --8<-- [end:variants]


# --- Closed forms, plain NumPy (the derivations' last lines) --------------------------------


def softmax_np(z: np.ndarray) -> np.ndarray:
    counts = np.exp(z - z.max(axis=-1, keepdims=True))
    return counts / counts.sum(axis=-1, keepdims=True)


# --8<-- [start:variant_gradient]
def cross_entropy_gradient(z, y, label_smoothing=0.0, weight=None, ignore_index=-100):
    """∂L/∂z = row_weight_b (p_b - q_b) / Σ_b row_weight_b, shape (B, V)."""
    V = z.shape[1]
    kept = y != ignore_index
    safe_y = np.where(kept, y, 0)
    w = np.ones(V) if weight is None else weight
    row_weight = w[safe_y] * kept
    q = (1 - label_smoothing) * np.eye(V)[safe_y] + label_smoothing / V
    return row_weight[:, None] * (softmax_np(z) - q) / row_weight.sum()
# --8<-- [end:variant_gradient]
