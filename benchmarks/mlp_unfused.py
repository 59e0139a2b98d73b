"""The natural model's own graph, differentiated by hand one VJP per node: no engine at all.

`mlp_model.make_loss` runs 20-odd NumPy calls forward (max-subtraction, exp, sum, log; mean,
var, sqrt, divide). A tracing engine must run those and then one VJP per node; this file does
exactly that with no boxes, no graph and no bookkeeping, each VJP written with few passes over
the data. So it is close to a floor for tracers: an engine's rules can only beat it by
reordering arithmetic a little. The gap between this row and the hand-written fused step is
the price of the *model as written*; the gap between an engine and this row is the price of
the *engine*.
"""

from __future__ import annotations

import numpy as np
from mlp_model import BN_EPS


def loss_and_grads(
    params: list[np.ndarray], windows: np.ndarray, targets: np.ndarray
) -> tuple[float, list[np.ndarray]]:
    """Forward exactly as mlp_model.loss computes it, then each node's VJP in reverse order."""
    embedding, w1, bngain, bnbias, w2, b2 = params
    batch_size = windows.shape[0]
    rows = np.arange(batch_size)

    emb = embedding[windows]
    embcat = emb.reshape(batch_size, -1)
    hprebn = embcat @ w1
    bnmean = np.mean(hprebn, axis=0, keepdims=True)
    bnvar = np.var(hprebn, axis=0, ddof=1, keepdims=True)
    centred = hprebn - bnmean
    scaled = bngain * centred
    std = np.sqrt(bnvar + BN_EPS)
    hpreact = scaled / std + bnbias
    h = np.tanh(hpreact)
    logits = h @ w2 + b2
    row_max = np.max(logits, axis=1, keepdims=True)
    shifted = logits - row_max
    exps = np.exp(shifted)
    sums = np.sum(exps, axis=1, keepdims=True)
    logprobs = shifted - np.log(sums)
    loss = -np.mean(logprobs[rows, targets])

    # Each block below is the VJP of one forward line, read bottom-up.
    dlogprobs = np.zeros_like(logprobs)
    dlogprobs[rows, targets] = -1.0 / batch_size
    dsums = -dlogprobs.sum(axis=1, keepdims=True) / sums
    dshifted = dlogprobs + exps * dsums
    winners = logits == row_max
    dlogits = dshifted + winners * (-dshifted.sum(axis=1, keepdims=True) / winners.sum(axis=1, keepdims=True))
    db2 = dlogits.sum(axis=0)
    dw2 = h.T @ dlogits
    dhpreact = (dlogits @ w2.T) * (1.0 - h * h)
    dbnbias = dhpreact.sum(axis=0, keepdims=True)
    dscaled = dhpreact / std
    # Reduce first, then divide: std has the reduced shape, so that is the cheap order.
    dstd = -(dhpreact * scaled).sum(axis=0, keepdims=True) / (std * std)
    dbnvar = dstd * 0.5 / std
    dbngain = (dscaled * centred).sum(axis=0, keepdims=True)
    dcentred = dscaled * bngain
    dhprebn = dcentred - dcentred.sum(axis=0, keepdims=True) / batch_size
    dhprebn += 2.0 * dbnvar * (hprebn - hprebn.mean(axis=0, keepdims=True)) / (batch_size - 1)
    dw1 = embcat.T @ dhprebn
    dembedding = np.zeros_like(embedding)
    np.add.at(dembedding, windows, (dhprebn @ w1.T).reshape(emb.shape))
    return float(loss), [dembedding, dw1, dbngain, dbnbias, dw2, db2]
