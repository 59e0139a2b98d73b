"""The character-level MLP of Part III: its parameters and its forward pass, split into atomic steps.

The model and its atomic steps follow Andrej Karpathy's lecture "Building makemore Part 4:
Becoming a Backprop Ninja" (https://www.youtube.com/watch?v=q8SA3rM6ckI, notebook
``lectures/makemore/makemore_part4_backprop.ipynb`` of https://github.com/karpathy/nn-zero-to-hero):
a 3-character context, an embedding table ``C`` of shape (27, 10), a linear layer to 64 hidden
units, BatchNorm on batch statistics with the variance divided by n - 1 as in the lecture (PyTorch's
``BatchNorm1d`` divides by n in training), tanh, a linear layer to 27 logits, and softmax
cross-entropy split into atomic steps.

Both Part III chapters ("Loss, output layer, tanh" and "BatchNorm, input layer, embedding") use
this one model, so it lives in this shared folder beside them; `_backward.py` holds the
hand-written backward pass, `_worked_example.py` the minibatch both chapters compare on, and
`_training.py` the training run and the sampling. Sections marked ``--8<--`` are included
verbatim into the pages.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from bookkit import load_snippet_module

names_data = load_snippet_module(Path(__file__).with_name("_names_data.py"))
# The model reads and writes characters of the dataset's alphabet, BLOCK_SIZE at a time.
ALPHABET, VOCAB_SIZE, BLOCK_SIZE = names_data.ALPHABET, names_data.VOCAB_SIZE, names_data.BLOCK_SIZE
N_EMBD = 10
N_HIDDEN = 64
BATCH_SIZE = 32
BN_EPS = 1e-5
# Weight of the new batch in the running BatchNorm estimates (PyTorch's `momentum` convention).
BN_MOMENTUM = 0.01

PARAM_NAMES = ("C", "W1", "b1", "bngain", "bnbias", "W2", "b2")

# Forward order; the hand-written backward visits them in reverse.
INTERMEDIATE_NAMES = (
    "emb",
    "embcat",
    "hprebn",
    "bnmeani",
    "bndiff",
    "bndiff2",
    "bnvar",
    "bnvar_inv",
    "bnraw",
    "hpreact",
    "h",
    "logits",
    "logit_maxes",
    "norm_logits",
    "counts",
    "counts_sum",
    "counts_sum_inv",
    "probs",
    "logprobs",
)

# The rows of the first Part III table ("Loss, output layer and tanh, by hand"): from the loss
# back to the tanh input, with the output
# layer's parameters where the backward pass meets them.
LOSS_TO_HPREACT = (
    "logprobs",
    "probs",
    "counts_sum_inv",
    "counts_sum",
    "counts",
    "norm_logits",
    "logit_maxes",
    "logits",
    "h",
    "W2",
    "b2",
    "hpreact",
)

# The rows of the second table ("BatchNorm, input layer and embedding, by hand"): BatchNorm, the
# input layer and the embedding.
HPREACT_TO_INPUT = (
    "bngain",
    "bnbias",
    "bnraw",
    "bnvar_inv",
    "bnvar",
    "bndiff2",
    "bndiff",
    "bnmeani",
    "hprebn",
    "embcat",
    "W1",
    "b1",
    "emb",
    "C",
)


# ---------------------------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------------------------


def init_params(seed: int = 2147483647) -> dict[str, np.ndarray]:
    """Small random parameters, float64.

    Biases and BatchNorm parameters get small random non-zero values: an all-zero bias or a gain
    of exactly one would hide a backward bug that multiplies by them.
    """
    rng = np.random.default_rng(seed)
    fan_in = N_EMBD * BLOCK_SIZE
    return {
        "C": rng.standard_normal((VOCAB_SIZE, N_EMBD)),
        "W1": rng.standard_normal((fan_in, N_HIDDEN)) * (5 / 3) / fan_in**0.5,
        "b1": rng.standard_normal(N_HIDDEN) * 0.1,
        "bngain": rng.standard_normal((1, N_HIDDEN)) * 0.1 + 1.0,
        "bnbias": rng.standard_normal((1, N_HIDDEN)) * 0.1,
        "W2": rng.standard_normal((N_HIDDEN, VOCAB_SIZE)) * 0.1,
        "b2": rng.standard_normal(VOCAB_SIZE) * 0.1,
    }


def sample_batch(
    seed: int = 0,
    X: np.ndarray | None = None,
    Y: np.ndarray | None = None,
    batch_size: int = BATCH_SIZE,
) -> tuple[np.ndarray, np.ndarray]:
    """A seeded minibatch of ``batch_size`` training windows."""
    if X is None or Y is None:
        splits = names_data.make_splits()
        X, Y = splits.Xtr, splits.Ytr
    index = np.random.default_rng(seed).integers(0, X.shape[0], size=batch_size)
    return X[index], Y[index]


# ---------------------------------------------------------------------------------------------
# Forward pass, split into atomic steps
# ---------------------------------------------------------------------------------------------


def forward(
    params: Mapping[str, Any],
    Xb: np.ndarray,
    Yb: np.ndarray,
    xp: ModuleType = np,
    replace: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the model one atomic step at a time and keep every intermediate.

    ``xp`` is ``numpy`` or ``ad_core.numpy``.  ``replace`` swaps one named parameter or
    intermediate for a given value (a box while ``ad_core`` traces): everything after it is then
    computed from that value, so the loss becomes a function of it and ``grad`` returns the total
    derivative of the loss with respect to that tensor, through every path.
    """
    replace = replace or {}

    def keep(name: str, value: Any) -> Any:
        return replace.get(name, value)

    C, W1, b1 = (keep(k, params[k]) for k in ("C", "W1", "b1"))
    bngain, bnbias, W2, b2 = (keep(k, params[k]) for k in ("bngain", "bnbias", "W2", "b2"))
    n = Xb.shape[0]
    # --8<-- [start:forward]
    emb = keep("emb", C[Xb])  # (32, 3, 10)
    embcat = keep("embcat", xp.reshape(emb, (n, -1)))  # (32, 30)
    hprebn = keep("hprebn", xp.dot(embcat, W1) + b1)  # (32, 64)
    bnmeani = keep("bnmeani", xp.sum(hprebn, axis=0, keepdims=True) * (1.0 / n))  # (1, 64)
    bndiff = keep("bndiff", hprebn - bnmeani)  # (32, 64)
    bndiff2 = keep("bndiff2", bndiff**2)  # (32, 64)
    bnvar = keep("bnvar", xp.sum(bndiff2, axis=0, keepdims=True) * (1.0 / (n - 1)))  # Bessel
    bnvar_inv = keep("bnvar_inv", (bnvar + BN_EPS) ** -0.5)  # (1, 64)
    bnraw = keep("bnraw", bndiff * bnvar_inv)  # (32, 64)
    hpreact = keep("hpreact", bngain * bnraw + bnbias)  # (32, 64)
    h = keep("h", xp.tanh(hpreact))  # (32, 64)
    logits = keep("logits", xp.dot(h, W2) + b2)  # (32, 27)
    logit_maxes = keep("logit_maxes", xp.max(logits, axis=1, keepdims=True))  # (32, 1)
    norm_logits = keep("norm_logits", logits - logit_maxes)  # (32, 27)
    counts = keep("counts", xp.exp(norm_logits))  # (32, 27)
    counts_sum = keep("counts_sum", xp.sum(counts, axis=1, keepdims=True))  # (32, 1)
    counts_sum_inv = keep("counts_sum_inv", counts_sum**-1)  # (32, 1)
    probs = keep("probs", counts * counts_sum_inv)  # (32, 27)
    logprobs = keep("logprobs", xp.log(probs))  # (32, 27)
    loss = -xp.mean(logprobs[np.arange(n), Yb])  # ()
    # --8<-- [end:forward]
    return {
        "emb": emb,
        "embcat": embcat,
        "hprebn": hprebn,
        "bnmeani": bnmeani,
        "bndiff": bndiff,
        "bndiff2": bndiff2,
        "bnvar": bnvar,
        "bnvar_inv": bnvar_inv,
        "bnraw": bnraw,
        "hpreact": hpreact,
        "h": h,
        "logits": logits,
        "logit_maxes": logit_maxes,
        "norm_logits": norm_logits,
        "counts": counts,
        "counts_sum": counts_sum,
        "counts_sum_inv": counts_sum_inv,
        "probs": probs,
        "logprobs": logprobs,
        "loss": loss,
    }


