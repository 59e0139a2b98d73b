"""The built chapter "Softmax and cross-entropy": the cross-entropy variants against PyTorch 2.13's
`torch.nn.functional.cross_entropy`, the backward-pass failure against PyTorch's own atomic and
fused versions, and the page's tables against values recomputed here."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

from ad_core import grad
from bookkit import load_snippet_module

FOLDER = "snippets/softmax/"
helpers = load_snippet_module(FOLDER + "_softmax.py")
batch = load_snippet_module(FOLDER + "_variants.py")


def quietly(name: str):
    """A snippet module, loaded without printing its Markdown."""
    with contextlib.redirect_stdout(io.StringIO()):
        return load_snippet_module(FOLDER + name)


def torch_or_skip():
    torch = pytest.importorskip("torch")
    assert torch.__version__.split("+")[0].startswith("2.13"), torch.__version__
    return torch


def torch_cross_entropy(z, y, **options):
    """PyTorch's loss and its autograd gradient with respect to the logits, in float64."""
    torch = torch_or_skip()
    logits = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    if "weight" in options:
        options = {**options, "weight": torch.tensor(options["weight"], dtype=torch.float64)}
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(y), **options)
    loss.backward()
    return loss.item(), logits.grad.numpy()


@pytest.mark.parametrize("variant", batch.VARIANTS, ids=[v[0] for v in batch.VARIANTS])
def test_cross_entropy_variants_match_pytorch(variant) -> None:
    """Each option of the variants table: the chapter's loss (the engine's forward value), the
    engine's gradient and the closed form r_b (p_b - q_b) / Σ r equal PyTorch 2.13's."""
    _, options, labels = variant
    torch_loss, torch_gradient = torch_cross_entropy(batch.LOGITS, labels, **options)
    np.testing.assert_allclose(float(helpers.cross_entropy(batch.LOGITS, labels, **options)), torch_loss,
                               rtol=1e-13)
    np.testing.assert_allclose(grad(helpers.cross_entropy)(batch.LOGITS, labels, **options), torch_gradient,
                               rtol=1e-12, atol=1e-16)
    np.testing.assert_allclose(helpers.cross_entropy_gradient(batch.LOGITS, labels, **options),
                               torch_gradient, rtol=1e-12, atol=1e-16)


def test_pytorch_weighted_mean_divides_by_the_weights_of_the_targets() -> None:
    """The page's note: PyTorch 2.13's `reduction='mean'` with `weight=` is the weighted sum over
    the per-row losses divided by Σ_b w_{y_b} of the kept rows, not by the batch size."""
    torch = torch_or_skip()
    z, y = torch.tensor(batch.LOGITS), torch.tensor(batch.LABELS_WITH_IGNORED)
    w = torch.tensor(batch.WEIGHTS)
    F = torch.nn.functional
    per_row = F.cross_entropy(z, y, weight=w, ignore_index=batch.IGNORE, reduction="none")
    mean = F.cross_entropy(z, y, weight=w, ignore_index=batch.IGNORE)
    kept = y != batch.IGNORE
    torch.testing.assert_close(mean, per_row.sum() / w[y[kept]].sum(), rtol=1e-14, atol=0.0)
    assert not torch.isclose(mean, per_row.sum() / len(y))
    assert torch.all(per_row[~kept] == 0)


def test_weights_with_label_smoothing_match_pytorch() -> None:
    """Exercise 3: with both `weight=` and `label_smoothing=`, PyTorch 2.13's loss is the
    exercise's `weighted_smoothed_loss`, its gradient the exercise's formula, and not the
    chapter's one-option formula with both options set."""
    exercises = quietly("exercises.py")
    z, y, w, eps = batch.LOGITS, batch.LABELS, batch.WEIGHTS, batch.SMOOTHING
    torch_loss, torch_gradient = torch_cross_entropy(z, y, weight=w, label_smoothing=eps)
    np.testing.assert_allclose(float(exercises.weighted_smoothed_loss(z, y, w, eps)), torch_loss, rtol=1e-13)
    np.testing.assert_allclose(exercises.torch_formula, torch_gradient, rtol=1e-12, atol=1e-16)
    np.testing.assert_allclose(exercises.engine3, torch_gradient, rtol=1e-12, atol=1e-16)
    assert not np.allclose(exercises.chapter_both, torch_gradient, rtol=1e-6)


def test_pytorch_atomic_backward_is_nan_where_the_fused_one_is_exact() -> None:
    """PyTorch 2.13 shows the same failure as the engine: on the first row of the page's table
    whose atomic gradient is nan, PyTorch's loss through `log(softmax(z))` is finite and its
    gradient nan; `log_softmax` gives p - onehot within an ulp."""
    torch = torch_or_skip()
    stability = quietly("backward_stability.py")
    first_failing = stability.nan_spreads[0]
    z = stability.logits(first_failing)
    atomic = torch.tensor(z, requires_grad=True)
    loss = -torch.log(torch.softmax(atomic, dim=0))[stability.target]
    loss.backward()
    assert torch.isfinite(loss) and torch.isnan(atomic.grad).any()
    fused = torch.tensor(z, requires_grad=True)
    (-torch.log_softmax(fused, dim=0)[stability.target]).backward()
    _, exact, _ = stability.reference(first_failing)
    assert stability.within_ulps(fused.grad.numpy(), exact) <= 1.0
    assert stability.within_ulps(grad(stability.fused_loss)(z), exact) <= 1.0


def test_stability_table_shows_where_the_atomic_gradient_breaks(text: str) -> None:
    """Recomputed here: the first spread whose p_y is below 1 / max float64 is the first row
    whose atomic gradient the page shows as nan, and every fused cell is finite."""
    stability = quietly("backward_stability.py")
    limit = 1 / np.longdouble(np.finfo(np.float64).max)
    first = min(s for s in stability.SPREADS if stability.reference(s)[0][stability.target] < limit)
    for spread in stability.SPREADS:
        row = re.search(rf"^\| {spread:.0f} \|([^\n]*)$", text, flags=re.MULTILINE)
        assert row, f"no row for spread {spread:.0f}"
        cells = [c.strip() for c in row.group(1).split("|")]
        assert ("nan" in cells[-2]) == (spread >= first), cells
        assert cells[-1].startswith("finite"), cells


def test_variants_table_shows_pytorchs_losses(text: str) -> None:
    for name, options, labels in batch.VARIANTS:
        torch_loss, _ = torch_cross_entropy(batch.LOGITS, labels, **options)
        row = rf"^\| {re.escape(name)} \|[^\n]*\| {torch_loss:.6f} \|"
        assert re.search(row, text, flags=re.MULTILINE), name
