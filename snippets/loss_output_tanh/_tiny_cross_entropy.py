"""Hidden helper: the chapter's cross-entropy on a tiny batch, written with ad_core.numpy.

Loaded by snippets through `bookkit.load_snippet_module`, so it works under markdown-exec and
standalone alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ad_core.numpy as anp

TARGETS = np.array([2, 0])
LOGITS = np.random.default_rng(0).standard_normal((2, 3))

# Node names in the order the engine creates the nodes, with the primitive each one must be.
NODE_NAMES = [
    ("logits", "root"),
    ("logit_maxes", "max"),
    ("norm_logits", "subtract"),
    ("counts", "exp"),
    ("counts_sum", "sum"),
    ("counts_sum_inv", "power"),
    ("probs", "multiply"),
    ("logprobs", "log"),
    ("picked", "array_getitem"),
    ("mean", "mean"),
    ("loss", "negative"),
]


def cross_entropy(Z: Any) -> Any:
    """The atomic steps of the chapter, from logits to loss."""
    logit_maxes = anp.max(Z, axis=1, keepdims=True)
    norm_logits = Z - logit_maxes
    counts = anp.exp(norm_logits)
    counts_sum = anp.sum(counts, axis=1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = anp.log(probs)
    return -anp.mean(logprobs[np.arange(Z.shape[0]), TARGETS])


def node_names(graph_nodes: list) -> dict[int, str]:
    """Map node ids to the chapter's names, after checking the engine built the expected graph."""
    assert [node.primitive for node in graph_nodes] == [p for _, p in NODE_NAMES]
    return {node.id: name for node, (name, _) in zip(graph_nodes, NODE_NAMES, strict=True)}
