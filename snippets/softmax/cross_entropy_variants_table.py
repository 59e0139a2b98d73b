"""Each cross-entropy option: its target q_b and row weight r_b, the loss, and the gradient
r_b (p_b - q_b) / Σ r against the engine and central differences."""

import math
from pathlib import Path

import numpy as np

from ad_core import grad
from bookkit import central_differences, checked, given, load_snippet_module, md_table, text

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))
batch = load_snippet_module(Path(__file__).with_name("_variants.py"))
z, V = batch.LOGITS, batch.V

TARGET_AND_WEIGHT = {  # the chapter's q_b and r_b for each option, as the page writes them
    "plain": (r"$\mathbf{1}_{y_b}$", "$1$"),
    "label smoothing": (r"$(1-\varepsilon)\mathbf{1}_{y_b} + \varepsilon/V$", "$1$"),
    "class weights": (r"$\mathbf{1}_{y_b}$", "$w_{y_b}$"),
    "ignore_index": (r"$\mathbf{1}_{y_b}$", r"$[y_b \ne \text{ignore}]$"),
    "weights and ignore_index": (r"$\mathbf{1}_{y_b}$", r"$w_{y_b}\,[y_b \ne \text{ignore}]$"),
}


def loss_by_loops(z, y, label_smoothing=0.0, weight=None, ignore_index=-100):
    """The same loss written with scalar loops and math.log, a second computation of the value."""
    total, weight_sum = 0.0, 0.0
    for row, label in zip(z, y, strict=True):
        if label == ignore_index:
            continue
        w = 1.0 if weight is None else float(weight[label])
        log_norm = math.log(sum(math.exp(v) for v in row))
        row_loss = sum(((1 - label_smoothing) * (k == label) + label_smoothing / V) * (log_norm - row[k])
                       for k in range(V))
        total, weight_sum = total + w * row_loss, weight_sum + w
    return total / weight_sum


def gap(shown_as_digits):
    return lambda v: f"{v:.{shown_as_digits}e}"


rows = []
for name, options, labels in batch.VARIANTS:
    loss = float(helpers.cross_entropy(z, labels, **options))
    engine = grad(helpers.cross_entropy)(z, labels, **options)
    formula = helpers.cross_entropy_gradient(z, labels, **options)
    by_differences = central_differences(
        lambda x, o=options, y=labels: float(helpers.cross_entropy(x, y, **o)), z
    )
    assert formula.shape == engine.shape == by_differences.shape == z.shape
    q, r = TARGET_AND_WEIGHT[name]
    rows.append([
        name,
        ", ".join(f"`{k}={'w' if k == 'weight' else v}`" for k, v in options.items()) or None,
        q, r,
        checked(loss, against=loss_by_loops(z, labels, **options), rtol=1e-13, shown_as=lambda v: f"{v:.6f}"),
        checked(float(np.abs(formula - engine).max()), against=0.0, atol=1e-15, shown_as=gap(0)),
        checked(float(np.abs(formula - by_differences).max()), against=0.0, atol=1e-9, shown_as=gap(0)),
    ])

print(text(
    "One batch of logits of shape {shape}, labels {labels} (and {ignored} with {ignore} for the "
    "ignored rows), class weights $w$ = {w}, smoothing $\\varepsilon$ = {eps}:",
    shape=given(z.shape), labels=given(batch.LABELS.tolist(), shown_as=lambda v: f"`{v}`"),
    ignored=given(batch.LABELS_WITH_IGNORED.tolist(), shown_as=lambda v: f"`{v}`"),
    ignore=given(batch.IGNORE, shown_as=lambda v: f"`{v}`"),
    w=given(batch.WEIGHTS.tolist(), shown_as=lambda v: f"`{v}`"), eps=given(batch.SMOOTHING),
))
print()
print(md_table(
    ["variant", "keyword arguments", "target $q_b$", "row weight $r_b$", "loss",
     "formula vs engine", "formula vs central differences"],
    rows,
))
