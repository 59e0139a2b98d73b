"""The built chapter "LayerNorm, RMSNorm and BatchNorm at inference" against PyTorch 2.13.

`torch.nn.LayerNorm`, `torch.nn.RMSNorm` and `torch.nn.BatchNorm1d` (training and `eval()`) are
run in float64 on random inputs with random weights and biases, and their outputs, gradients and
running statistics are compared with the chapter's hand-written code (`_norms.py`), which the
page checks against `ad_core` and central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad
from bookkit import load_snippet_module

norms = load_snippet_module("snippets/normalization/_norms.py")
torch = pytest.importorskip("torch")
B, H = 6, 5


def test_normalization_compares_with_pytorch_2_13() -> None:
    assert torch.__version__.startswith("2.13"), torch.__version__


@pytest.fixture()
def inputs() -> dict:
    return norms.random_inputs(np.random.default_rng(2026), B, H)


def _run(layer, x: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The layer's output and the gradient of sum(g * output) for its input."""
    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    out = layer(xt)
    out.backward(torch.from_numpy(g))
    return out.detach().numpy(), xt.grad.numpy()


def _set_parameters(layer, gain: np.ndarray, bias: np.ndarray | None) -> None:
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(gain))
        if bias is not None:
            layer.bias.copy_(torch.from_numpy(bias))


def test_pytorch_layernorm_matches_the_hand_written_backward(inputs, text: str) -> None:
    x, gain, bias, g = inputs["x"], inputs["gain"], inputs["bias"], inputs["g"]
    layer = torch.nn.LayerNorm(H, eps=norms.EPS, dtype=torch.float64)
    # PyTorch starts the weight at ones, where a misplaced gain is invisible (the page's warning).
    assert torch.equal(layer.weight, torch.ones(H, dtype=torch.float64))
    _set_parameters(layer, gain, bias)
    out, dx = _run(layer, x, g)
    hand_dx, hand_dgain, hand_dbias = norms.layernorm_backward(g, x, gain)
    np.testing.assert_allclose(out, norms.layernorm(x, gain, bias), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(dx, hand_dx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(layer.weight.grad.numpy(), hand_dgain, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(layer.bias.grad.numpy(), hand_dbias, rtol=1e-10, atol=1e-12)
    # The wrong version the page shows differs from PyTorch too, not only from ad_core.
    assert not np.allclose(norms.layernorm_backward_gain_outside(g, x, gain), dx, rtol=1e-3)
    assert "Test with a gain that is not one" in text


def test_pytorch_rmsnorm_matches_the_hand_written_backward(inputs) -> None:
    assert hasattr(torch.nn, "RMSNorm")
    x, gain, g = inputs["x"], inputs["gain"], inputs["g"]
    layer = torch.nn.RMSNorm(H, eps=norms.EPS, dtype=torch.float64)
    assert not any(name == "bias" for name, _ in layer.named_parameters())  # RMSNorm has no bias
    _set_parameters(layer, gain, None)
    out, dx = _run(layer, x, g)
    hand_dx, hand_dgain = norms.rmsnorm_backward(g, x, gain)
    np.testing.assert_allclose(out, norms.rmsnorm(x, gain), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(dx, hand_dx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(layer.weight.grad.numpy(), hand_dgain, rtol=1e-10, atol=1e-12)


def test_pytorch_batchnorm1d_running_statistics_after_one_step(inputs, text: str) -> None:
    x, gain, bias, g = inputs["x"], inputs["gain"], inputs["bias"], inputs["g"]
    layer = torch.nn.BatchNorm1d(H, eps=norms.EPS, dtype=torch.float64)
    assert layer.momentum == norms.MOMENTUM
    _set_parameters(layer, gain, bias)
    layer.train()
    out, dx = _run(layer, x, g)
    np.testing.assert_allclose(out, norms.batchnorm_train(x, gain, bias), rtol=1e-12, atol=1e-13)
    # The training gradients against ad_core's, of the chapter's forward pass.
    engine = grad(lambda a, w, b: anp.sum(g * norms.batchnorm_train(a, w, b)), (0, 1, 2))(x, gain, bias)
    for torch_grad, engine_grad in zip((dx, layer.weight.grad.numpy(), layer.bias.grad.numpy()), engine,
                                       strict=True):
        np.testing.assert_allclose(torch_grad, engine_grad, rtol=1e-10, atol=1e-12)
    running_mean, running_var = norms.running_update(np.zeros(H), np.ones(H), x)
    np.testing.assert_allclose(layer.running_mean.numpy(), running_mean, rtol=1e-12)
    np.testing.assert_allclose(layer.running_var.numpy(), running_var, rtol=1e-12)
    # The running variance is the unbiased one, and not the biased one the output used.
    biased_update = (1 - norms.MOMENTUM) + norms.MOMENTUM * x.var(axis=0)
    assert not np.allclose(layer.running_var.numpy(), biased_update, rtol=1e-6)
    # The same input at inference gives another output.
    layer.eval()
    eval_out, _ = _run(layer, x, g)
    np.testing.assert_allclose(
        eval_out, norms.batchnorm_eval(x, gain, bias, running_mean, running_var), rtol=1e-12, atol=1e-13
    )
    assert not np.allclose(eval_out, out, rtol=1e-2)
    assert "running_var" in text and "Bessel" in text


def test_pytorch_batchnorm1d_eval_gradient_has_no_batch_coupling(inputs) -> None:
    x, gain, bias, g = inputs["x"], inputs["gain"], inputs["bias"], inputs["g"]
    layer = torch.nn.BatchNorm1d(H, eps=norms.EPS, dtype=torch.float64)
    _set_parameters(layer, gain, bias)
    layer.train()
    layer(torch.from_numpy(x))  # one step, so the running statistics are not the defaults
    running_var = layer.running_var.numpy().copy()
    layer.eval()
    _, dx = _run(layer, x, g)
    np.testing.assert_allclose(dx, norms.batchnorm_eval_backward(g, gain, running_var), rtol=1e-12)
    xhat = (x - layer.running_mean.numpy()) / np.sqrt(running_var + norms.EPS)
    np.testing.assert_allclose(layer.weight.grad.numpy(), (g * xhat).sum(axis=0), rtol=1e-10)
    np.testing.assert_allclose(layer.bias.grad.numpy(), g.sum(axis=0), rtol=1e-10)

    def eval_layer(a):
        return layer(a)

    def train_layer(a):
        layer.train()
        try:
            return torch.nn.functional.batch_norm(
                a, None, None, layer.weight, layer.bias, training=True, momentum=0.0, eps=norms.EPS
            )
        finally:
            layer.eval()

    xt = torch.from_numpy(x)
    off_diagonal = ~np.eye(B, dtype=bool)
    for function, expected in ((eval_layer, 0), (train_layer, B * (B - 1))):
        jac = torch.autograd.functional.jacobian(function, xt).numpy()  # (B, H, B, H)
        assert norms.coupling_counts(jac, tol=1e-12)[0] == expected
        assert (np.abs(jac).max(axis=(1, 3))[off_diagonal] > 1e-12).sum() == expected


def test_pytorch_batchnorm1d_refuses_a_batch_of_one_in_training() -> None:
    """Exercise 3's contrast: the hand-written layer returns the bias for a (1, H) batch, while
    PyTorch's BatchNorm1d raises in training mode and accepts the same batch in eval()."""
    layer = torch.nn.BatchNorm1d(H, eps=norms.EPS, dtype=torch.float64)
    one = torch.from_numpy(np.random.default_rng(54).normal(size=(1, H)))
    layer.train()
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        layer(one)
    layer.eval()
    assert layer(one).shape == (1, H)
    two = torch.from_numpy(np.random.default_rng(55).normal(size=(2, H)))
    layer.train()
    assert layer(two).shape == (2, H)  # one more example and training mode accepts it
    hand = norms.batchnorm_train(one.numpy(), np.ones(H), np.full(H, 0.25))
    np.testing.assert_allclose(hand, np.full((1, H), 0.25), atol=1e-12)


def test_page_shows_the_counts_and_the_derivations(text: str) -> None:
    assert "15 comparisons" in text  # the LayerNorm derivation: 5 lines after the first, 3 trials
    assert "9 comparisons" in text  # RMSNorm
    assert r"- \hat x_{ij} \sum_k \hat g_{ik}\, \hat x_{ik}" in text
    assert "Exercise 3" in text
