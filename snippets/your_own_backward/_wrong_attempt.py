"""A deliberately wrong attempt at `_exercise.py`, to show what the checker reports.

Check it from the repository's root:

    python -m snippets.your_own_backward._check_backward snippets/your_own_backward/_wrong_attempt.py
"""

import numpy as np

BN_EPS = 1e-5  # the forward pass's BatchNorm epsilon
# The gradients `backward` returns, one cell d<name> each; other locals (a scratch `dtmp`) are not.
GRADIENTS = (
    "logprobs", "probs", "counts_sum_inv", "counts_sum", "counts", "norm_logits", "logit_maxes",
    "logits", "h", "W2", "b2", "hpreact", "bngain", "bnbias", "bnraw", "bnvar_inv", "bnvar",
    "bndiff2", "bndiff", "bnmeani", "hprebn", "embcat", "W1", "b1", "emb", "C",
)


def backward(params, cache, Xb, Yb):
    C, W1, bngain, W2 = params["C"], params["W1"], params["bngain"], params["W2"]
    emb, embcat, bndiff, bndiff2 = cache["emb"], cache["embcat"], cache["bndiff"], cache["bndiff2"]
    bnvar, bnvar_inv, bnraw, h = cache["bnvar"], cache["bnvar_inv"], cache["bnraw"], cache["h"]
    logits, counts, counts_sum = cache["logits"], cache["counts"], cache["counts_sum"]
    counts_sum_inv, probs = cache["counts_sum_inv"], cache["probs"]
    n = Xb.shape[0]
    # --8<-- [start:cells]
    # cross-entropy: loss = -mean(logprobs[range(n), Yb])
    dlogprobs = np.zeros_like(probs)
    dlogprobs[np.arange(n), Yb] = -1.0 / n  # the mean, then the pick
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = np.sum(counts * dprobs, axis=1, keepdims=True)
    dcounts = counts_sum_inv * dprobs  # first use of counts
    dcounts_sum = -(counts_sum**-2) * dcounts_sum_inv
    dcounts += np.ones_like(counts) * dcounts_sum  # second use: add
    dnorm_logits = counts * dcounts
    dlogit_maxes = -np.sum(dnorm_logits, axis=1, keepdims=True)
    dlogits = dnorm_logits.copy()  # first use of logits
    dlogits[np.arange(n), np.argmax(logits, axis=1)] += dlogit_maxes[:, 0]  # second: the max
    # output layer and tanh
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = np.sum(dlogits, axis=0, keepdims=True)  # wrong: shape (1, 27), not (27,)
    dhpreact = (1.0 - h**2) * dh
    # BatchNorm (the variance divides by n - 1)
    dbngain = np.sum(bnraw * dhpreact, axis=0, keepdims=True)
    dbnbias = np.sum(dhpreact, axis=0, keepdims=True)
    dbnraw = bngain * dhpreact
    dbnvar_inv = np.sum(bndiff * dbnraw, axis=0, keepdims=True)
    dbnvar = -0.5 * (bnvar + BN_EPS) ** -1.5 * dbnvar_inv
    dbndiff2 = np.ones_like(bndiff2) * dbnvar * (1.0 / n)  # wrong: the forward divides by n - 1
    dbndiff = bnvar_inv * dbnraw + 2.0 * bndiff * dbndiff2  # both uses of bndiff
    dbnmeani = -np.sum(dbndiff, axis=0, keepdims=True)
    dhprebn = dbndiff + np.ones_like(dbndiff) * dbnmeani * (1.0 / n)  # both uses of hprebn
    # input layer and embedding
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = np.sum(dhprebn, axis=0)
    demb = dembcat.reshape(emb.shape)
    dC = np.zeros_like(C)
    np.add.at(dC, Xb, demb)  # repeated characters add up
    # --8<-- [end:cells]
    cells = locals()
    return {name: cells[f"d{name}"] for name in GRADIENTS if f"d{name}" in cells}
