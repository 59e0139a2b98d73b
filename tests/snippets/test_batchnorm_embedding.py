"""The built chapter "BatchNorm, input layer, embedding" shows what the model computes.

Reference gradients come from HIPS/autograd and from central differences; the training run is
repeated here to check that it is deterministic and that the page prints its results.
"""

from __future__ import annotations

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

from bookkit import load_snippet_module
from bookkit.testing import assert_hand_vs_engine_rows, row_starting_with

names_data = load_snippet_module("snippets/network_by_hand/_names_data.py")
model = load_snippet_module("snippets/network_by_hand/_model.py")
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
training = load_snippet_module("snippets/network_by_hand/_training.py")


@pytest.fixture(scope="module")
def example() -> worked.WorkedExample:
    return worked.worked_example()


@pytest.fixture(scope="module")
def autograd_gradients(example) -> dict[str, np.ndarray]:
    return worked.engine_gradients(
        example.params, example.Xb, example.Yb, model.HPREACT_TO_INPUT, autograd.grad, agnp
    )


def test_batchnorm_chapter_compares_every_tensor_to_the_input(text: str, example, autograd_gradients) -> None:
    assert_hand_vs_engine_rows(text, model.HPREACT_TO_INPUT, example.hand, example.engine, autograd_gradients)


def test_fused_batchnorm_is_close_but_not_identical(text: str, example, autograd_gradients) -> None:
    fused = by_hand.batchnorm_backward_fused(
        example.hand["hpreact"], example.cache["bnraw"], example.cache["bnvar_inv"],
        example.params["bngain"],
    )
    np.testing.assert_allclose(fused, autograd_gradients["hprebn"], rtol=1e-9, atol=1e-15)
    differing = int(np.count_nonzero(fused != example.hand["hprebn"]))
    assert f"{differing} of {fused.size}" in row_starting_with(text, "step by step (by hand)")


def test_embedding_gradient_matches_central_differences(example) -> None:
    C = example.params["C"]
    step = 1e-6
    rng = np.random.default_rng(1)
    used_rows = np.unique(example.Xb)
    for row in rng.choice(used_rows, 4, replace=False):
        for column in rng.integers(0, C.shape[1], 2):
            bump = np.zeros_like(C)
            bump[row, column] = step
            plus = model.forward({**example.params, "C": C + bump}, example.Xb, example.Yb)["loss"]
            minus = model.forward({**example.params, "C": C - bump}, example.Xb, example.Yb)["loss"]
            numeric = (plus - minus) / (2 * step)
            assert abs(numeric - example.hand["C"][row, column]) < 1e-8


def test_naive_embedding_update_fails_exactly_on_repeats(text: str, example, autograd_gradients) -> None:
    naive = by_hand.backward_hpreact_to_input(
        example.params, example.cache, example.Xb, example.hand["hpreact"],
        embedding_update="indexed +=",
    )["C"]
    wrong_rows = np.flatnonzero(~np.isclose(naive, autograd_gradients["C"]).all(axis=1))
    repeated = np.flatnonzero(np.bincount(example.Xb.ravel(), minlength=27) > 1)
    assert np.array_equal(wrong_rows, repeated)
    assert f"{len(repeated)} characters occur more than once" in text
    assert f"{len(wrong_rows)}: exactly the repeated ones" in text


def test_training_is_deterministic_and_its_results_are_on_the_page(text: str, html: str) -> None:
    first = training.train_by_hand()
    training.train_by_hand.cache_clear()
    second = training.train_by_hand()
    np.testing.assert_array_equal(first.losses, second.losses)
    for name in model.PARAM_NAMES:
        np.testing.assert_array_equal(first.params[name], second.params[name])
    assert first.checkpoints == second.checkpoints
    shown = [(step, val) for step, val in second.checkpoints if step % 750 == 0]
    assert len(shown) >= 3
    for step, val in shown:
        rows = [line for line in text.splitlines() if line.startswith(f"| {step} |")]
        assert any(line.endswith(f"| {val:.4f}") for line in rows), (step, val)
    # Independent recomputation of the last checkpoint from the trained parameters.
    splits = names_data.make_splits()
    logits = training.logits_with_frozen_batchnorm(
        second.params, splits.Xva, second.running_mean, second.running_var
    )
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    val = float(-log_probs[np.arange(len(splits.Yva)), splits.Yva].mean())
    assert abs(val - second.checkpoints[-1][1]) < 1e-12
    # The hand-written gradients trained the model: validation loss fell well below log 27.
    assert val < np.log(27) - 0.8
    assert "<svg" in html


def test_calibrated_statistics_and_samples_are_on_the_page(text: str) -> None:
    run = training.train_by_hand()
    splits = names_data.make_splits()
    bnmean, bnvar = training.calibrate_batchnorm(run.params, splits.Xtr)
    # Independent recomputation of the calibration: mean and unbiased variance of hprebn.
    hprebn = run.params["C"][splits.Xtr].reshape(len(splits.Xtr), -1) @ run.params["W1"] + run.params["b1"]
    np.testing.assert_allclose(bnmean, hprebn.mean(0, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(bnvar, hprebn.var(0, ddof=1, keepdims=True), rtol=1e-12)
    val = training.evaluate_loss(run.params, splits.Xva, splits.Yva, bnmean, bnvar)
    assert f"{val:.4f}" in row_starting_with(text, "calibrated on the training set")
    for sample in training.sample_names(run.params, bnmean, bnvar, count=20, seed=11):
        assert sample in text


def test_batchnorm_derivation_was_checked(text: str) -> None:
    assert "15 comparisons" in text
    assert r"\frac{n}{n-1}\, \hat x_{ij}" in text


def test_pytorch_batchnorm1d_normalises_with_the_biased_variance_and_tracks_the_unbiased(
    text: str, example
) -> None:
    """PyTorch 2.13's `torch.nn.BatchNorm1d` in training mode: the output uses the variance
    divided by n, `running_var` is updated with the variance divided by n - 1. This book's model
    divides by n - 1 in training (as Karpathy's lecture does), so it is not PyTorch's layer."""
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13"), torch.__version__
    x = example.cache["hprebn"]
    H = x.shape[1]
    layer = torch.nn.BatchNorm1d(H, eps=model.BN_EPS, dtype=torch.float64)
    layer.train()
    out = layer(torch.from_numpy(x)).detach().numpy()
    biased = (x - x.mean(0)) / np.sqrt(x.var(0, ddof=0) + model.BN_EPS)
    np.testing.assert_allclose(out, biased, rtol=1e-10, atol=1e-12)
    assert not np.allclose(out, example.cache["bnraw"], rtol=1e-3)       # ours divides by n - 1
    momentum = layer.momentum
    unbiased = x.var(0, ddof=1)
    np.testing.assert_allclose(layer.running_var.numpy(), (1 - momentum) + momentum * unbiased, rtol=1e-12)
    np.testing.assert_allclose(layer.running_mean.numpy(), momentum * x.mean(0), rtol=1e-12)
    # The page says which the book follows, names both, and no longer credits an unnamed source.
    assert "reference implementation" not in text
    assert "PyTorch 2.13's torch.nn.BatchNorm1d" in text.replace("`", "")
    assert "Karpathy" in text and "biased variance" in text


def test_step_zero_validation_loss_is_explained_and_computed(text: str) -> None:
    run = training.train_by_hand()
    splits = names_data.make_splits()
    step0 = dict(run.checkpoints)[0]
    H = model.N_HIDDEN
    initial = training.evaluate_loss(
        model.init_params(), splits.Xva, splits.Yva, np.zeros((1, H)), np.ones((1, H))
    )
    assert step0 == initial and step0 > np.log(27)
    calibrated = training.calibrate_batchnorm(model.init_params(), splits.Xtr)
    val_calibrated = training.evaluate_loss(model.init_params(), splits.Xva, splits.Yva, *calibrated)
    assert f"At step 0 the validation loss is {step0:.4f}" in text
    assert f"the step-zero loss is {val_calibrated:.4f}" in text


def test_validation_loss_is_below_the_training_set_loss_with_the_same_frozen_statistics(text: str) -> None:
    """The page explains why the validation loss sits below the minibatch loss: the minibatch
    loss is averaged over moving parameters in training mode, and the split itself is easier (the
    whole training set, with the same frozen statistics, has the higher loss). The page once gave
    only the first reason."""
    run, splits = training.train_by_hand(), names_data.make_splits()
    mean, var = training.calibrate_batchnorm(run.params, splits.Xtr)
    train = training.evaluate_loss(run.params, splits.Xtr, splits.Ytr, mean, var)
    validation = training.evaluate_loss(run.params, splits.Xva, splits.Yva, mean, var)
    last_minibatches = float(np.mean(run.losses[-100:]))
    assert validation < train < last_minibatches
    assert "has a slightly higher loss than the validation set" in " ".join(text.split())
