"""The Part III network's backward pass, written by hand one atomic step at a time.

The first half (`backward_loss_to_hpreact`) is the chapter "Loss, output layer, tanh"; the
second (`backward_hpreact_to_input`) and the one-formula BatchNorm gradient are "BatchNorm,
input layer, embedding". The forward pass they differentiate is `_model.forward`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from bookkit import load_snippet_module

model = load_snippet_module(Path(__file__).with_name("_model.py"))
BN_EPS = model.BN_EPS


def backward_loss_to_hpreact(
    params: Mapping[str, np.ndarray],
    cache: Mapping[str, np.ndarray],
    Yb: np.ndarray,
    accumulate_counts: str = "+=",
    log_step: str = "reciprocal",
) -> dict[str, np.ndarray]:
    """The gradients from ``logprobs`` back to ``hpreact``, one atomic step each.

    ``accumulate_counts`` exists for the chapter's counterexample: ``"+="`` is correct,
    ``"drop"`` deletes the sum-path line, ``"="`` overwrites the direct path with it.
    ``log_step="divide"`` writes the log step as ``ad_core``'s rule does (``g / x``) instead of
    the lecture's ``(1.0 / probs) * dlogprobs``; the page uses it to show which line decides
    bit-for-bit equality.
    """
    W2 = params["W2"]
    logits, h = cache["logits"], cache["h"]
    counts, counts_sum, counts_sum_inv = cache["counts"], cache["counts_sum"], cache["counts_sum_inv"]
    probs = cache["probs"]
    n = Yb.shape[0]
    # --8<-- [start:loss_backward]
    dlogprobs = np.zeros_like(probs)
    dlogprobs[np.arange(n), Yb] = -1.0 / n  # the mean, then the pick
    dprobs = (1.0 / probs) * dlogprobs  # log
    # --8<-- [end:loss_backward]
    if log_step == "divide":
        dprobs = dlogprobs / probs  # the engine's rule for log: g / x
    elif log_step != "reciprocal":
        raise ValueError(f"log_step must be 'reciprocal' or 'divide', not {log_step!r}")
    # --8<-- [start:loss_backward_rest]
    dcounts_sum_inv = np.sum(counts * dprobs, axis=1, keepdims=True)  # r was used by every column
    dcounts = counts_sum_inv * dprobs  # first path into counts
    dcounts_sum = -(counts_sum**-2) * dcounts_sum_inv  # reciprocal
    # --8<-- [end:loss_backward_rest]
    if accumulate_counts == "+=":
        # --8<-- [start:accumulate]
        dcounts += np.ones_like(counts) * dcounts_sum  # second path into counts: add it
        # --8<-- [end:accumulate]
    elif accumulate_counts == "=":
        dcounts = np.ones_like(counts) * dcounts_sum
    elif accumulate_counts != "drop":
        raise ValueError(f"accumulate_counts must be '+=', '=' or 'drop', not {accumulate_counts!r}")
    # --8<-- [start:max_path]
    dnorm_logits = counts * dcounts  # exp is its own derivative
    dlogits = dnorm_logits.copy()  # direct path of logits - maxes
    dlogit_maxes = -np.sum(dnorm_logits, axis=1, keepdims=True)
    winners = np.argmax(logits, axis=1)  # where each row's max came from
    dlogits[np.arange(n), winners] += dlogit_maxes[:, 0]  # second path into logits
    # --8<-- [end:max_path]
    # --8<-- [start:output_layer]
    dh = dlogits @ W2.T  # (32, 27) @ (27, 64) -> (32, 64)
    dW2 = h.T @ dlogits  # (64, 32) @ (32, 27) -> (64, 27)
    db2 = np.sum(dlogits, axis=0)  # b2 was broadcast over the batch
    dhpreact = (1.0 - h**2) * dh  # tanh, elementwise
    # --8<-- [end:output_layer]
    return {
        "logprobs": dlogprobs,
        "probs": dprobs,
        "counts_sum_inv": dcounts_sum_inv,
        "counts_sum": dcounts_sum,
        "counts": dcounts,
        "norm_logits": dnorm_logits,
        "logit_maxes": dlogit_maxes,
        "logits": dlogits,
        "h": dh,
        "W2": dW2,
        "b2": db2,
        "hpreact": dhpreact,
    }


def backward_hpreact_to_input(
    params: Mapping[str, np.ndarray],
    cache: Mapping[str, np.ndarray],
    Xb: np.ndarray,
    dhpreact: np.ndarray,
    embedding_update: str = "add.at",
) -> dict[str, np.ndarray]:
    """BatchNorm, the input layer and the embedding, one atomic step each.

    ``embedding_update="indexed +="`` is the tempting version that loses repeated characters.
    """
    bngain, W1, C = params["bngain"], params["W1"], params["C"]
    emb, embcat = cache["emb"], cache["embcat"]
    bndiff, bndiff2, bnvar = cache["bndiff"], cache["bndiff2"], cache["bnvar"]
    bnvar_inv, bnraw = cache["bnvar_inv"], cache["bnraw"]
    n = Xb.shape[0]
    # --8<-- [start:batchnorm_backward]
    dbngain = np.sum(bnraw * dhpreact, axis=0, keepdims=True)  # gain was broadcast: sum
    dbnbias = np.sum(dhpreact, axis=0, keepdims=True)
    dbnraw = bngain * dhpreact
    dbndiff = bnvar_inv * dbnraw  # first path into bndiff
    dbnvar_inv = np.sum(bndiff * dbnraw, axis=0, keepdims=True)
    dbnvar = -0.5 * (bnvar + BN_EPS) ** -1.5 * dbnvar_inv
    dbndiff2 = np.ones_like(bndiff2) * dbnvar * (1.0 / (n - 1))  # sum forward, copy backward
    dbndiff += 2.0 * bndiff * dbndiff2  # second path into bndiff
    dhprebn = dbndiff.copy()  # first path into hprebn
    dbnmeani = -np.sum(dbndiff, axis=0, keepdims=True)
    dhprebn += np.ones_like(dhprebn) * dbnmeani * (1.0 / n)  # second path, via the mean
    # --8<-- [end:batchnorm_backward]
    # --8<-- [start:input_layer]
    dembcat = dhprebn @ W1.T  # (32, 64) @ (64, 30)
    dW1 = embcat.T @ dhprebn  # (30, 32) @ (32, 64)
    db1 = np.sum(dhprebn, axis=0)
    demb = dembcat.reshape(emb.shape)  # undo the concatenation
    # --8<-- [end:input_layer]
    if embedding_update == "add.at":
        # --8<-- [start:embedding]
        dC = np.zeros_like(C)
        np.add.at(dC, Xb, demb)  # every use of a row adds, repeats included
        # --8<-- [end:embedding]
    elif embedding_update == "indexed +=":
        # --8<-- [start:embedding_naive]
        dC = np.zeros_like(C)
        dC[Xb] += demb  # buffered: a repeated row keeps only one write
        # --8<-- [end:embedding_naive]
    else:
        raise ValueError(f"unknown embedding_update {embedding_update!r}")
    return {
        "bngain": dbngain,
        "bnbias": dbnbias,
        "bnraw": dbnraw,
        "bnvar_inv": dbnvar_inv,
        "bnvar": dbnvar,
        "bndiff2": dbndiff2,
        "bndiff": dbndiff,
        "bnmeani": dbnmeani,
        "hprebn": dhprebn,
        "embcat": dembcat,
        "W1": dW1,
        "b1": db1,
        "emb": demb,
        "C": dC,
    }


def batchnorm_backward_fused(
    dhpreact: np.ndarray, bnraw: np.ndarray, bnvar_inv: np.ndarray, bngain: np.ndarray
) -> np.ndarray:
    """The BatchNorm input gradient as one formula (derived in "BatchNorm, input layer and
    embedding, by hand")."""
    n = dhpreact.shape[0]
    # --8<-- [start:batchnorm_fused]
    dhprebn = (
        bngain
        * bnvar_inv
        / n
        * (
            n * dhpreact
            - np.sum(dhpreact, axis=0, keepdims=True)
            - n / (n - 1) * bnraw * np.sum(dhpreact * bnraw, axis=0, keepdims=True)
        )
    )
    # --8<-- [end:batchnorm_fused]
    return dhprebn


def cross_entropy_backward_fused(logits: np.ndarray, Yb: np.ndarray) -> np.ndarray:
    """The three-line cross-entropy gradient (derived in "Loss, output layer and tanh, by hand")."""
    n = logits.shape[0]
    shifted = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    # --8<-- [start:ce_fused]
    dlogits = shifted / np.sum(shifted, axis=1, keepdims=True)  # softmax(logits)
    dlogits[np.arange(n), Yb] -= 1.0
    dlogits /= n
    # --8<-- [end:ce_fused]
    return dlogits


def backward_by_hand(
    params: Mapping[str, np.ndarray],
    cache: Mapping[str, np.ndarray],
    Xb: np.ndarray,
    Yb: np.ndarray,
    log_step: str = "reciprocal",
) -> dict[str, np.ndarray]:
    """All hand-written gradients: from the loss to ``hpreact``, then down to ``C``."""
    upper = backward_loss_to_hpreact(params, cache, Yb, log_step=log_step)
    lower = backward_hpreact_to_input(params, cache, Xb, upper["hpreact"])
    return {**upper, **lower}

