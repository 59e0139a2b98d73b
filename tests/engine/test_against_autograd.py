"""HIPS/autograd 1.9.1 as an oracle: the same function gives the same derivatives to 1e-12.

Every model below is written once against a NumPy-like module `xp` and instantiated twice,
with `ad_core.numpy` and with `autograd.numpy`, so the two engines see identical code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

import ad_core
import ad_core.numpy as anp

TOLERANCE = {"rtol": 1e-12, "atol": 1e-12}

# Model sizes, kept small: the point is agreement, not speed.
BATCH, FEATURES, HIDDEN, CLASSES = 5, 4, 6, 3


def unpack_mlp(xp, params):
    """Slice a flat parameter vector into two dense layers (exercises indexing and reshape)."""
    sizes = [(FEATURES, HIDDEN), (HIDDEN,), (HIDDEN, CLASSES), (CLASSES,)]
    pieces, start = [], 0
    for shape in sizes:
        count = int(np.prod(shape))
        pieces.append(xp.reshape(params[start : start + count], shape))
        start += count
    return pieces


MLP_PARAMETER_COUNT = FEATURES * HIDDEN + HIDDEN + HIDDEN * CLASSES + CLASSES


def logsumexp(xp, logits, axis):
    peak = xp.max(logits, axis=axis, keepdims=True)
    return xp.log(xp.sum(xp.exp(logits - peak), axis=axis, keepdims=True)) + peak


def softmax_cross_entropy(xp, logits, labels_one_hot):
    log_probabilities = logits - logsumexp(xp, logits, axis=1)
    return -xp.mean(xp.sum(labels_one_hot * log_probabilities, axis=1))


def mlp_loss(xp, params, inputs, labels_one_hot):
    w1, b1, w2, b2 = unpack_mlp(xp, params)
    hidden = xp.tanh(inputs @ w1 + b1)
    return softmax_cross_entropy(xp, hidden @ w2 + b2, labels_one_hot) + 1e-3 * xp.sum(params**2)


def batch_norm(xp, x, gamma, beta, eps=1e-5):
    mean = xp.mean(x, axis=0, keepdims=True)
    variance = xp.var(x, axis=0, keepdims=True)
    return gamma * (x - mean) / xp.sqrt(variance + eps) + beta


class Model(NamedTuple):
    name: str
    build: Callable[[Any, dict[str, np.ndarray]], Callable[[Any], Any]]
    input_shape: tuple[int, ...]
    low: float = -1.0
    high: float = 1.0


def fixed_data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    labels = rng.integers(0, CLASSES, size=BATCH)
    return {
        "inputs": rng.standard_normal((BATCH, FEATURES)),
        "labels": np.eye(CLASSES)[labels],
        "params": rng.standard_normal(MLP_PARAMETER_COUNT) * 0.5,
        "weights": rng.standard_normal((BATCH, FEATURES)),
        "gamma": rng.uniform(0.5, 1.5, size=(1, FEATURES)),
        "beta": rng.standard_normal((1, FEATURES)),
        "matrix": rng.standard_normal((FEATURES, FEATURES)),
    }


MODELS = [
    Model("polynomial", lambda xp, d: lambda x: xp.sum(x**3 - 2.0 * x**2 + x), (4,)),
    Model("trig-mix", lambda xp, d: lambda x: xp.sum(xp.sin(x) * xp.cos(2.0 * x) + xp.tan(x / 2)), (3, 4)),
    Model(
        "exp-log-sqrt",
        lambda xp, d: lambda x: xp.sum(xp.log(x) * xp.exp(-x) + xp.sqrt(x) / (1 + x)),
        (2, 3),
        0.5,
        2.0,
    ),
    Model(
        "hyperbolic-inverse-trig",
        lambda xp, d: lambda x: xp.sum(xp.arcsin(x) + xp.arctan(x) * xp.cosh(x) - xp.sinh(x) ** 2),
        (5,),
        -0.8,
        0.8,
    ),
    Model("logsumexp", lambda xp, d: lambda x: xp.sum(logsumexp(xp, x, axis=1)), (3, 4)),
    Model(
        "softmax",
        lambda xp, d: lambda x: xp.sum(d["weights"][:3] * xp.exp(x - logsumexp(xp, x, axis=1))),
        (3, 4),
    ),
    Model(
        "softmax-cross-entropy-logits",
        lambda xp, d: lambda x: softmax_cross_entropy(xp, x, d["labels"]),
        (BATCH, CLASSES),
    ),
    Model(
        "mlp-loss-wrt-params",
        lambda xp, d: lambda p: mlp_loss(xp, p, d["inputs"], d["labels"]),
        (MLP_PARAMETER_COUNT,),
    ),
    Model(
        "mlp-loss-wrt-inputs",
        lambda xp, d: lambda x: mlp_loss(xp, d["params"], x, d["labels"]),
        (BATCH, FEATURES),
    ),
    Model(
        "batch-norm-wrt-inputs",
        lambda xp, d: lambda x: xp.sum(d["weights"] * batch_norm(xp, x, d["gamma"], d["beta"])),
        (BATCH, FEATURES),
    ),
    Model(
        "batch-norm-wrt-gamma",
        lambda xp, d: lambda g: xp.sum(d["weights"] * xp.tanh(batch_norm(xp, d["inputs"], g, d["beta"]))),
        (1, FEATURES),
    ),
    Model(
        "std-ddof-and-prod",
        lambda xp, d: lambda x: xp.sum(xp.std(x, axis=0, ddof=1)) + xp.prod(x[0]),
        (3, 4),
    ),
    Model(
        "max-min-abs",
        lambda xp, d: lambda x: xp.sum(xp.max(x, axis=1)) - xp.min(x) + xp.sum(xp.abs(x)),
        (3, 4),
    ),
    Model(
        "maximum-where-clip",
        lambda xp, d: (
            lambda x: xp.sum(xp.maximum(x, 0.1) + xp.where(x > 0, x**2, -x) + xp.clip(x, -0.5, 0.5))
        ),
        (3, 4),
    ),
    Model(
        "matrix-products",
        lambda xp, d: (
            lambda x: xp.sum(xp.dot(x, d["matrix"]) * x) + xp.trace(x.T @ x) + xp.sum(xp.outer(x[0], x[1]))
        ),
        (3, FEATURES),
    ),
    Model(
        "einsum-tensordot",
        lambda xp, d: (
            lambda x: xp.einsum("ij,jk,ik->", x, d["matrix"], x) + xp.sum(xp.tensordot(x, x, axes=([0], [0])))
        ),
        (3, FEATURES),
    ),
    Model(
        "shape-ops",
        lambda xp, d: (
            lambda x: (
                xp.sum(xp.concatenate([xp.transpose(x), xp.swapaxes(x, 0, 1)[::-1]], axis=1) ** 2)
                + xp.sum(xp.stack([x, x * 2]) * xp.expand_dims(x, 0))
                + xp.sum(xp.cumsum(xp.ravel(x)) ** 2)
            )
        ),
        (3, 4),
    ),
    Model(
        "indexing-repeat-tile",
        lambda xp, d: (
            lambda x: (
                xp.sum(x[[0, 0, 2], 1:] ** 2)
                + xp.sum(xp.repeat(x, 2, axis=0) * xp.tile(x, (2, 1)))
                + xp.sum(xp.triu(x) - xp.tril(x, -1) * 3)
            )
        ),
        (3, 3),
    ),
    Model(
        "broadcast-arithmetic",
        lambda xp, d: lambda x: xp.sum((x[:, None, :] - x[None, :, :]) ** 2 / (1.0 + x[:, :1] ** 2)),
        (3, 4),
    ),
    Model(
        "logaddexp-arctan2-mod",
        lambda xp, d: lambda x: xp.sum(xp.logaddexp(x, 2 * x) + xp.arctan2(x, 1.5 + x**2) + xp.mod(x, 0.7)),
        (2, 3),
    ),
]


HVP_MODELS = {
    "polynomial",
    "logsumexp",
    "mlp-loss-wrt-inputs",
    "batch-norm-wrt-inputs",
    "broadcast-arithmetic",
    "shape-ops",
    "indexing-repeat-tile",
    "einsum-tensordot",
}


def build_pair(model: Model, rng: np.random.Generator):
    data = fixed_data(rng)
    return model.build(anp, data), model.build(agnp, data)


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.name)
def test_gradient_equals_autograd(model: Model, rng) -> None:
    ours, theirs = build_pair(model, rng)
    x = rng.uniform(model.low, model.high, size=model.input_shape)
    value, gradient = ad_core.value_and_grad(ours)(x)
    expected_value, expected_gradient = autograd.value_and_grad(theirs)(x)
    assert np.shape(gradient) == np.shape(expected_gradient) == x.shape
    np.testing.assert_allclose(value, expected_value, **TOLERANCE)
    np.testing.assert_allclose(gradient, expected_gradient, **TOLERANCE)


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.name)
def test_forward_mode_equals_autograd(model: Model, rng) -> None:
    ours, theirs = build_pair(model, rng)
    x = rng.uniform(model.low, model.high, size=model.input_shape)
    tangent = rng.standard_normal(model.input_shape)
    _, computed = ad_core.make_jvp(ours)(x)(tangent)
    _, expected = autograd.make_jvp(theirs)(x)(tangent)
    np.testing.assert_allclose(computed, expected, **TOLERANCE)


@pytest.mark.parametrize(
    "model",
    [model for model in MODELS if model.name in HVP_MODELS],
    ids=lambda model: model.name,
)
def test_hessian_vector_product_equals_autograd(model: Model, rng) -> None:
    ours, theirs = build_pair(model, rng)
    x = rng.uniform(model.low, model.high, size=model.input_shape)
    vector = rng.standard_normal(model.input_shape)
    computed = ad_core.hessian_vector_product(ours)(x, vector)
    expected = autograd.hessian_vector_product(theirs)(x, vector)
    np.testing.assert_allclose(computed, expected, rtol=1e-11, atol=1e-11)


def test_jacobian_of_softmax_equals_autograd(rng) -> None:
    def softmax(xp):
        return lambda z: xp.exp(z - logsumexp(xp, z, axis=0))

    z = rng.standard_normal(4)
    computed = ad_core.jacobian(softmax(anp))(z)
    np.testing.assert_allclose(computed, autograd.jacobian(softmax(agnp))(z), **TOLERANCE)
    probabilities = np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(
        computed, np.diag(probabilities) - np.outer(probabilities, probabilities), **TOLERANCE
    )


def test_hessian_of_mlp_loss_equals_autograd(rng) -> None:
    data = fixed_data(rng)
    x = data["inputs"][:2]
    labels = data["labels"][:2]
    computed = ad_core.hessian(lambda v: mlp_loss(anp, data["params"], v, labels))(x)
    expected = autograd.hessian(lambda v: mlp_loss(agnp, data["params"], v, labels))(x)
    assert computed.shape == (2, FEATURES, 2, FEATURES)
    np.testing.assert_allclose(computed, expected, rtol=1e-11, atol=1e-11)


def test_mlp_gradient_equals_pytorch(rng) -> None:
    torch = pytest.importorskip("torch")
    data = fixed_data(rng)
    gradient = ad_core.grad(lambda p: mlp_loss(anp, p, data["inputs"], data["labels"]))(data["params"])

    params = torch.tensor(data["params"], dtype=torch.float64, requires_grad=True)
    sizes = [(FEATURES, HIDDEN), (HIDDEN,), (HIDDEN, CLASSES), (CLASSES,)]
    pieces, start = [], 0
    for shape in sizes:
        count = int(np.prod(shape))
        pieces.append(params[start : start + count].reshape(shape))
        start += count
    w1, b1, w2, b2 = pieces
    inputs = torch.tensor(data["inputs"], dtype=torch.float64)
    labels = torch.tensor(data["labels"], dtype=torch.float64)
    logits = torch.tanh(inputs @ w1 + b1) @ w2 + b2
    loss = -(labels * torch.log_softmax(logits, dim=1)).sum(dim=1).mean() + 1e-3 * (params**2).sum()
    loss.backward()
    np.testing.assert_allclose(gradient, params.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_batch_norm_gradient_equals_pytorch(rng) -> None:
    torch = pytest.importorskip("torch")
    data = fixed_data(rng)
    x = data["inputs"]
    gradient = ad_core.grad(
        lambda v: anp.sum(data["weights"] * batch_norm(anp, v, data["gamma"], data["beta"]))
    )(x)

    inputs = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    normalized = torch.nn.functional.batch_norm(
        inputs,
        running_mean=None,
        running_var=None,
        weight=torch.tensor(data["gamma"][0]),
        bias=torch.tensor(data["beta"][0]),
        training=True,
        eps=1e-5,
    )
    (torch.tensor(data["weights"]) * normalized).sum().backward()
    np.testing.assert_allclose(gradient, inputs.grad.numpy(), rtol=1e-10, atol=1e-12)
