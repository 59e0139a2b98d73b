"""The makemore MLP step with a backward pass written by hand in plain NumPy.

This is the yardstick: no graph, no boxes, the fused softmax-cross-entropy gradient, the fused
BatchNorm gradient (Bessel-corrected batch variance), and np.add.at for the embedding rows that
repeat inside a batch.
"""

from __future__ import annotations

import numpy as np
from mlp_model import BN_EPS


def loss_and_grads(
    params: list[np.ndarray], windows: np.ndarray, targets: np.ndarray
) -> tuple[float, list[np.ndarray]]:
    """Forward and backward of one step; gradients come back in PARAM_NAMES order."""
    embedding, w1, bngain, bnbias, w2, b2 = params
    batch_size = windows.shape[0]
    rows = np.arange(batch_size)

    emb = embedding[windows]
    embcat = emb.reshape(batch_size, -1)
    hprebn = embcat @ w1
    bndiff = hprebn - hprebn.mean(axis=0, keepdims=True)
    bnvar = (bndiff * bndiff).sum(axis=0, keepdims=True) / (batch_size - 1)
    bnvar_inv = (bnvar + BN_EPS) ** -0.5
    bnraw = bndiff * bnvar_inv
    h = np.tanh(bngain * bnraw + bnbias)
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    exps = np.exp(shifted)
    sums = exps.sum(axis=1, keepdims=True)
    loss = float(np.mean(np.log(sums[:, 0]) - shifted[rows, targets]))

    # Softmax cross-entropy in one line: (probabilities - one_hot) / B.
    dlogits = exps / sums
    dlogits[rows, targets] -= 1.0
    dlogits /= batch_size
    dw2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    dhpreact = (1.0 - h * h) * (dlogits @ w2.T)
    dbngain = (bnraw * dhpreact).sum(axis=0, keepdims=True)
    dbnbias = dhpreact.sum(axis=0, keepdims=True)
    # BatchNorm in one expression; the B/(B-1) factor is Bessel's correction coming back.
    dhprebn = (
        bngain
        * bnvar_inv
        / batch_size
        * (batch_size * dhpreact - dbnbias - batch_size / (batch_size - 1) * bnraw * dbngain)
    )
    dw1 = embcat.T @ dhprebn
    dembedding = np.zeros_like(embedding)
    np.add.at(dembedding, windows, (dhprebn @ w1.T).reshape(emb.shape))
    return loss, [dembedding, dw1, dbngain, dbnbias, dw2, db2]
