"""The character-level MLP of Part III, with its forward and backward pass written by hand.

The model and its atomic steps follow Andrej Karpathy's lecture "Building makemore Part 4:
Becoming a Backprop Ninja" (https://www.youtube.com/watch?v=q8SA3rM6ckI, notebook
``lectures/makemore/makemore_part4_backprop.ipynb`` of https://github.com/karpathy/nn-zero-to-hero):
a 3-character context, an embedding table ``C`` of shape (27, 10), a linear layer to 64 hidden
units, BatchNorm on batch statistics with the variance divided by n - 1 as in the lecture (PyTorch's
``BatchNorm1d`` divides by n in training), tanh, a linear layer to 27 logits, and softmax
cross-entropy split into atomic steps.

Everything the two Part III chapters print comes from the functions here, so that both chapters
and their tests share one model, one dataset and one set of hand-written gradients.  Sections
marked ``--8<--`` are included verbatim into the pages.
"""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from .claims import Rendered, checked, given, yes_no
from .formatting import md_table, text

ALPHABET = ".abcdefghijklmnopqrstuvwxyz"
VOCAB_SIZE = len(ALPHABET)
BLOCK_SIZE = 3
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
# Data
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NameCorpus:
    """First names from the US-census lists shipped inside the PyPI package ``names``."""

    names: tuple[str, ...]
    male_count: int
    female_count: int
    in_both: int
    package_version: str


def _read_census_list(file_name: str) -> list[str]:
    text = importlib.resources.files("names").joinpath(file_name).read_text(encoding="ascii")
    return [line.split()[0].lower() for line in text.splitlines() if line.strip()]


@functools.cache
def load_names() -> NameCorpus:
    """Read ``dist.male.first`` and ``dist.female.first`` from the installed ``names`` package."""
    from importlib.metadata import version

    male = _read_census_list("dist.male.first")
    female = _read_census_list("dist.female.first")
    unique = sorted(set(male) | set(female))
    assert all(set(word) <= set(ALPHABET[1:]) for word in unique)
    return NameCorpus(
        names=tuple(unique),
        male_count=len(male),
        female_count=len(female),
        in_both=len(set(male) & set(female)),
        package_version=version("names"),
    )


def encode(word: str) -> list[int]:
    """Character indices of ``word``; ``.`` (index 0) marks the start and the end of a name."""
    return [ALPHABET.index(ch) for ch in word]


def build_windows(words: tuple[str, ...] | list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Every (3-character context, next character) pair of every word, as int64 arrays."""
    contexts: list[list[int]] = []
    targets: list[int] = []
    for word in words:
        context = [0] * BLOCK_SIZE
        for index in [*encode(word), 0]:
            contexts.append(context)
            targets.append(index)
            context = [*context[1:], index]
    return np.array(contexts, dtype=np.int64), np.array(targets, dtype=np.int64)


@dataclass(frozen=True)
class Splits:
    """Train / validation / test windows built from a seeded shuffle of the names."""

    Xtr: np.ndarray
    Ytr: np.ndarray
    Xva: np.ndarray
    Yva: np.ndarray
    Xte: np.ndarray
    Yte: np.ndarray
    name_counts: tuple[int, int, int]


@functools.cache
def make_splits(seed: int = 42) -> Splits:
    """Split the names 80 / 10 / 10 after a seeded shuffle, then cut each part into windows."""
    words = list(load_names().names)
    order = np.random.default_rng(seed).permutation(len(words))
    shuffled = [words[i] for i in order]
    n1, n2 = int(0.8 * len(words)), int(0.9 * len(words))
    parts = (shuffled[:n1], shuffled[n1:n2], shuffled[n2:])
    (Xtr, Ytr), (Xva, Yva), (Xte, Yte) = (build_windows(p) for p in parts)
    return Splits(Xtr, Ytr, Xva, Yva, Xte, Yte, tuple(len(p) for p in parts))  # type: ignore[arg-type]


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
        splits = make_splits()
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


# ---------------------------------------------------------------------------------------------
# Backward pass by hand
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# Reference gradients from an autodiff engine, and the comparison table
# ---------------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Comparison:
    """One row of a hand-vs-engine table."""

    name: str
    shape_hand: tuple[int, ...]
    shape_engine: tuple[int, ...]
    exact: bool
    approximate: bool
    max_abs_diff: float
    scale: float = 0.0  # the largest entry of the engine's gradient, in absolute value

    @property
    def shapes_match(self) -> bool:
        return self.shape_hand == self.shape_engine


APPROX_RTOL = 1e-9
APPROX_ATOL = 1e-12


def compare(name: str, hand: np.ndarray, engine: np.ndarray) -> Comparison:
    """Shape first (a broadcasting comparison could hide a wrong shape), then values."""
    hand, engine = np.asarray(hand), np.asarray(engine)
    if hand.shape != engine.shape:
        return Comparison(name, hand.shape, engine.shape, False, False, float("nan"))
    return Comparison(
        name=name,
        shape_hand=hand.shape,
        shape_engine=engine.shape,
        exact=bool(np.array_equal(hand, engine)),
        approximate=bool(np.allclose(hand, engine, rtol=APPROX_RTOL, atol=APPROX_ATOL)),
        max_abs_diff=float(np.max(np.abs(hand - engine))) if hand.size else 0.0,
        scale=float(np.max(np.abs(engine))) if engine.size else 0.0,
    )


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


def _tick(ok: bool) -> str:
    return "✓" if ok else "✗"


def _diff_text(value: float) -> str:
    return f"{value:.1e}"


def comparison_rows(
    comparisons: list[Comparison],
    shapes: Mapping[str, tuple[int, ...]],
    approximate_expected: Mapping[str, bool],
    bit_equal_expected: Mapping[str, bool],
    second: tuple[list[Comparison], Mapping[str, bool]] | None = None,
) -> list[list[Any]]:
    """Table rows, each cell checked: the gradient's shape against its tensor's shape; the shape
    check against the engine's shape; "bit-equal" against `bit_equal_expected` (a prediction);
    "approximate" against `approximate_expected` (central differences); the largest difference
    against zero within the closeness tolerance. `second` adds a bit-equal column for another
    batch, with its own predictions."""
    other = {c.name: c for c in second[0]} if second else {}
    rows = []
    for c in comparisons:
        row = [
            f"`d{c.name}`",
            checked(c.shape_hand, against=tuple(shapes[c.name])),
            checked(c.shapes_match, against=c.shape_engine == tuple(shapes[c.name]), shown_as=_tick),
            checked(c.exact, against=bit_equal_expected[c.name], shown_as=yes_no),
            checked(c.approximate, against=approximate_expected[c.name], shown_as=yes_no),
        ]
        shown = c
        if second:
            shown = other[c.name]
            assert shown.approximate and shown.shapes_match, shown
            row.append(checked(shown.exact, against=second[1][c.name], shown_as=yes_no))
        # The largest difference: zero within the closeness tolerance (a claim that can fail).
        tolerance = APPROX_ATOL + APPROX_RTOL * shown.scale
        row.append(checked(shown.max_abs_diff, against=0.0, atol=tolerance, shown_as=_diff_text))
        rows.append(row)
    return rows


def comparison_table(
    comparisons: list[Comparison],
    shapes: Mapping[str, tuple[int, ...]],
    approximate_expected: Mapping[str, bool],
    bit_equal_expected: Mapping[str, bool],
    batch_size: int,
    second: tuple[int, list[Comparison], Mapping[str, bool]] | None = None,
) -> Rendered:
    """The hand-vs-engine Markdown table (`comparison_rows`): one row per gradient at
    `batch_size`, and with `second = (batch size, comparisons, predictions)` a column saying which
    gradients are bit-equal at that other batch size; the last column is the largest difference
    at the second batch size when there is one (at the first it is zero wherever bits agree)."""
    headers: list[Any] = [
        "gradient",
        "shape",
        "shape check",
        text("bit-equal, $B = {b}$", b=given(batch_size)),
        "approximate",
    ]
    align = ["left", "right", "center", "center", "center", "center", "right"]
    if second:
        headers.append(text("bit-equal, $B = {b}$", b=given(second[0])))
        headers.append(text("max abs diff, $B = {b}$", b=given(second[0])))
    else:
        headers.append("max abs diff")
        align.pop()
    rows = comparison_rows(
        comparisons, shapes, approximate_expected, bit_equal_expected,
        (second[1], second[2]) if second else None,
    )
    return md_table(headers, rows, align=align)


def _code_list(names: list[str]) -> str:
    return ", ".join(f"`d{name}`" for name in names) if names else "none"


def comparison_summary(
    comparisons: list[Comparison],
    approximate_expected: Mapping[str, bool],
    bit_equal_expected: Mapping[str, bool],
    batch_size: int,
    engine: str | None = None,
    second: tuple[int, list[Comparison], Mapping[str, bool]] | None = None,
) -> Rendered:
    """The sentence under a hand-vs-engine table: how many gradients agree (checked against how
    many central differences confirmed), the tolerance (with `engine` named when given), and which
    are bit-equal at each batch size (counts checked against the predictions)."""
    agree = f"agree with `{engine}` to" if engine else "agree to"

    def bit_equal(batch: int, rows: list[Comparison], expected: Mapping[str, bool]) -> Rendered:
        exact = [c.name for c in rows if c.exact]
        names = f" ({_code_list(exact)})" if 0 < len(exact) < len(rows) else ""
        return text(
            "Bit-equal at $B = {b}$: {k} of {n}{names}.",
            b=given(batch),
            k=checked(len(exact), against=sum(bool(expected[c.name]) for c in rows)),
            n=checked(len(rows), against=len({c.name for c in rows} & set(expected))),
            names=names,
        )

    sentence = text(
        "All {n} gradients have the right shape and " + agree + " `rtol={rtol}, atol={atol}`. ",
        n=checked(len(comparisons), against=sum(bool(approximate_expected[c.name]) for c in comparisons)),
        rtol=given(APPROX_RTOL, shown_as=lambda v: f"{v:g}"),
        atol=given(APPROX_ATOL, shown_as=lambda v: f"{v:g}"),
    ) + bit_equal(batch_size, comparisons, bit_equal_expected)
    if second:
        sentence = sentence + " " + bit_equal(*second)
    return sentence


# ---------------------------------------------------------------------------------------------
# Training with the hand-written backward pass only
# ---------------------------------------------------------------------------------------------


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
    params = init_params()
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
        context = [0] * BLOCK_SIZE
        chars = []
        while True:
            logits = logits_with_frozen_batchnorm(params, np.array([context]), bnmean, bnvar)[0]
            p = np.exp(logits - logits.max())
            p /= p.sum()
            index = int(rng.choice(VOCAB_SIZE, p=p))
            if index == 0 or len(chars) >= 20:
                break
            chars.append(ALPHABET[index])
            context = [*context[1:], index]
        out.append("".join(chars))
    return out


# ---------------------------------------------------------------------------------------------
# The worked example both chapters share
# ---------------------------------------------------------------------------------------------


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
    batch_seed: int = 0, batch_size: int = BATCH_SIZE, log_step: str = "reciprocal"
) -> WorkedExample:
    """The chapters' minibatch (``batch_size`` windows drawn with ``batch_seed``); the engine's
    gradients come from ``ad_core``. Cached per build."""
    import ad_core.numpy as anp
    from ad_core import grad

    params = init_params()
    Xb, Yb = sample_batch(batch_seed, batch_size=batch_size)
    cache = forward(params, Xb, Yb)
    hand = backward_by_hand(params, cache, Xb, Yb, log_step=log_step)
    engine = engine_gradients(params, Xb, Yb, LOSS_TO_HPREACT + HPREACT_TO_INPUT, grad, anp)
    return WorkedExample(params, Xb, Yb, cache, hand, engine)


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


# ---------------------------------------------------------------------------------------------
# Where things are, for the chapters' theory ↔ source tables
# ---------------------------------------------------------------------------------------------


def _line_span(path: str, first: int, last: int) -> Rendered:
    if first == last:
        return text("`{path}` line {first}", path=path, first=first)
    return text("`{path}` lines {first}\u2013{last}", path=path, first=first, last=last)


def located(obj: Any) -> Rendered:
    """`path` lines `first` to `last` of an engine or model object, from `source_location`, each
    number checked against `inspect.getsourcelines` of the unwrapped function."""
    import inspect
    import os

    from .source import REPO_ROOT, source_location

    path, first, last = source_location(obj)
    function = inspect.unwrap(getattr(obj, "fun", obj))
    lines, start = inspect.getsourcelines(function)
    where = os.path.relpath(inspect.getsourcefile(function), REPO_ROOT).replace(os.sep, "/")
    return _line_span(
        checked(path, against=where).value,
        checked(first, against=start),
        checked(last, against=start + len(lines) - 1),
    )


def section_location(name: str) -> Rendered:
    """The code lines of the ``--8<--`` section `name` of this module (the lines the pages
    include), found by reading the file, each number checked against the module source that
    `inspect` returns."""
    import inspect
    from pathlib import Path

    file_lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    start = file_lines.index(next(s for s in file_lines if s.strip() == f"# --8<-- [start:{name}]"))
    end = file_lines.index(next(s for s in file_lines if s.strip() == f"# --8<-- [end:{name}]"))
    module_lines = inspect.getsource(inspect.getmodule(section_location)).splitlines()
    marker_start = [i for i, s in enumerate(module_lines, 1) if s.strip() == f"# --8<-- [start:{name}]"]
    marker_end = [i for i, s in enumerate(module_lines, 1) if s.strip() == f"# --8<-- [end:{name}]"]
    first, last = start + 2, end  # 1-based: the line after the start marker, the one before the end
    return _line_span(
        "bookkit/mlp_by_hand.py",
        checked(first, against=marker_start[0] + 1),
        checked(last, against=marker_end[0] - 1),
    )
