"""Hidden helper: the batch and the option sets of the cross-entropy variants, shared by the
variants table, the tempting-wrong-mean experiment and tests/snippets/test_softmax.py."""

import numpy as np

B, V = 6, 4                                    # distinct sizes
IGNORE = -100                                  # PyTorch's default ignore_index
SMOOTHING = 0.1
rng = np.random.default_rng(1808)
LOGITS = 1.5 * rng.standard_normal((B, V))
LABELS = np.array([2, 0, 1, 3, 1, 2])
LABELS_WITH_IGNORED = np.array([2, 0, IGNORE, 3, IGNORE, 2])
WEIGHTS = np.round(rng.uniform(0.2, 1.0, V), 2)   # a weighted mean far from the plain one

# name, PyTorch keyword arguments, labels: one option at a time, and weights with ignored rows.
VARIANTS = [
    ("plain", {}, LABELS),
    ("label smoothing", {"label_smoothing": SMOOTHING}, LABELS),
    ("class weights", {"weight": WEIGHTS}, LABELS),
    ("ignore_index", {"ignore_index": IGNORE}, LABELS_WITH_IGNORED),
    ("weights and ignore_index", {"weight": WEIGHTS, "ignore_index": IGNORE}, LABELS_WITH_IGNORED),
]
