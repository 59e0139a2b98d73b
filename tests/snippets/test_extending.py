"""The chapter "Extending the engine": overflow shown, stable values, and the trained model."""

from __future__ import annotations

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

from bookkit.testing import array_from_cell, table_rows


def reference_logsumexp(z, axis=-1):
    """Stable log-sum-exp in HIPS/autograd, the independent reference (scipy is not installed)."""
    peak = agnp.max(z, axis=axis, keepdims=True)
    return agnp.squeeze(peak, axis) + agnp.log(agnp.sum(agnp.exp(z - peak), axis=axis))


def test_naive_overflows_and_stable_values_are_right(text: str) -> None:
    rows = [row for row in table_rows(text) if len(row) == 6 and row[0].startswith("[")]
    assert len(rows) == 3
    for row in rows:
        z = array_from_cell(row[0])
        assert float(row[4]) == pytest.approx(float(reference_logsumexp(z)), abs=5e-7)
        softmax = np.exp(z - reference_logsumexp(z))
        shown = array_from_cell(row[5])
        np.testing.assert_allclose(shown, softmax, atol=5e-7)
    assert rows[1][1] == "inf" and rows[2][1] == "-inf" and "nan" in rows[1][2]


def test_training_losses_match_autograd(text: str) -> None:
    rng = np.random.default_rng(111)
    centers = np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]])
    labels = np.repeat(np.arange(3), 20)
    features = centers[labels] + 0.8 * rng.standard_normal((60, 2))
    one_hot = np.eye(3)[labels]

    def loss(params):
        logits = features @ params[:6].reshape(2, 3) + params[6:]
        return agnp.mean(reference_logsumexp(logits, axis=1) - agnp.sum(one_hot * logits, axis=1))

    params, expected = np.zeros(9), []
    for _ in range(8):
        expected.append(loss(params))
        params = params - 0.5 * autograd.grad(loss)(params)
    rows = [row for row in table_rows(text) if len(row) == 4 and row[3].endswith("%")]
    assert [float(row[1]) for row in rows] == pytest.approx(expected, abs=5e-5)


def test_stress_table_and_softplus_table(text: str) -> None:
    stress = {row[0]: row for row in table_rows(text) if len(row) == 3 and "of" in row[2]}
    naive = next(row for name, row in stress.items() if name.startswith("naive"))
    stable = next(row for name, row in stress.items() if "primitive" in name)
    assert naive[1] == "inf" and naive[2].startswith("9 of 9")
    assert stable[2] == "0 of 9"
    softplus_rows = {row[0]: row for row in table_rows(text) if len(row) == 5}
    assert softplus_rows["1000"][1:] == ["inf", "nan", "1000", "1"]


def test_summary_credits_the_model_to_logsumexp_only(text: str) -> None:
    # Only logsumexp is used in the model; softplus is never trained with.
    assert "logsumexp and softplus built this way train" not in text
    assert "logsumexp built this way trains a model" in text


def test_stress_gradient_is_checked_relatively_not_against_zero_differences(text: str) -> None:
    """The page said the stable gradient on `features * 1000` "matches central differences".
    Its entries are near 1e-107: the differences are exact zeros, and the old comparison
    (`atol=1e-5`) accepted the gradient with its sign flipped. HIPS/autograd 1.9.1's gradient
    of the same loss must agree with the one the page describes, relatively."""
    rng = np.random.default_rng(111)
    centers = np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]])
    labels = np.repeat(np.arange(3), 20)
    features = centers[labels] + 0.8 * rng.standard_normal((60, 2))
    one_hot = np.eye(3)[labels]

    def loss(params, features):
        logits = features @ params[:6].reshape(2, 3) + params[6:]
        return agnp.mean(reference_logsumexp(logits, axis=1) - agnp.sum(one_hot * logits, axis=1))

    params = np.zeros(9)
    for _ in range(8):
        params = params - 0.5 * autograd.grad(loss)(params, features)
    scaled = features * 1000.0
    gradient = autograd.grad(loss)(params, scaled)
    step = 1e-6
    central = np.array([(loss(params + step * e, scaled) - loss(params - step * e, scaled)) / (2 * step)
                        for e in np.eye(9)])
    assert not central.any() and 0 < np.max(np.abs(gradient)) < 1e-100
    assert np.allclose(-gradient, central, rtol=1e-5, atol=1e-5)  # the old check: it cannot fail
    assert "its gradient matches central differences" not in text
    assert "too small for central differences" in text
    shown = float(text.split("whose largest entry is ")[1].split(":")[0])
    assert shown == pytest.approx(float(np.max(np.abs(gradient))), rel=0.06)
