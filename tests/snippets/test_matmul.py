"""The built chapter "Matrix multiplication" shows what the engine computes.

The worked example is recomputed here from its inputs with NumPy and with HIPS/autograd 1.9.1 (and
PyTorch 2.13 when it is installed) as references; table entries are recomputed from the snippet
modules' inputs. Nothing is pasted from the page.
"""

from __future__ import annotations

import re

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

from bookkit import fmt_shape, latex_matrix, load_snippet_module

FOLDER = "snippets/matmul/"


def snippet(name: str):
    return load_snippet_module(FOLDER + name)


def worked_example_reference() -> dict[str, np.ndarray]:
    module = snippet("worked_example.py")
    h, W2, b2, dZ = module.h, module.W2, module.b2, module.dZ

    def loss(h, W2, b2):
        return agnp.sum(dZ * (agnp.dot(h, W2) + b2))

    return {
        "dh": autograd.grad(loss, 0)(h, W2, b2),
        "dW2": autograd.grad(loss, 1)(h, W2, b2),
        "db2": autograd.grad(loss, 2)(h, W2, b2),
        "inputs": (h, W2, dZ),
    }


def test_worked_example_anchor_exists_for_part_three(html: str) -> None:
    assert 'id="worked-example"' in html


def test_worked_example_values_are_shown(text: str) -> None:
    reference = worked_example_reference()
    h, W2, dZ = reference["inputs"]
    np.testing.assert_allclose(reference["dh"], dZ @ W2.T)
    np.testing.assert_allclose(reference["dW2"], h.T @ dZ)
    for name, value in [("h", h), ("W_2", W2), (r"\bar Z", dZ)]:
        assert f"{name} = {latex_matrix(value)}" in text
    assert rf"\bar h = {latex_matrix(reference['dh'])}" in text
    assert rf"\bar W_2 = {latex_matrix(reference['dW2'])}" in text
    assert rf"\bar b_2 = {latex_matrix(reference['db2'], vector='row')}" in text


def test_worked_example_against_pytorch(text: str) -> None:
    torch = pytest.importorskip("torch")
    reference = worked_example_reference()
    h, W2, dZ = (torch.tensor(a, requires_grad=True) for a in reference["inputs"])
    (h @ W2).backward(dZ.detach())
    np.testing.assert_allclose(h.grad.numpy(), reference["dh"])
    np.testing.assert_allclose(W2.grad.numpy(), reference["dW2"])


def test_derivation_comparisons_are_reported(text: str) -> None:
    module = snippet("matmul_elementwise_derivation.py")
    total = sum((len(d.lines) - 1) * 3 for d in (module.dh, module.dW, module.db))
    assert f"{total} line-to-line comparisons" in text


def test_shape_alignment_picks_exactly_one_candidate(text: str) -> None:
    module = snippet("shape_alignment_rule.py")
    batch, hidden, vocab = module.batch, module.hidden, module.vocab
    assert len({batch, hidden, vocab}) == 3
    row = re.search(
        r"\|\s*dZ @ Wᵀ\s*\|\s*(\(\d+, \d+\)) @ (\(\d+, \d+\))\s*\|\s*gives (\(\d+, \d+\)): the gradient", text
    )
    assert row and row.group(3) == fmt_shape((batch, hidden))
    row = re.search(r"\|\s*hᵀ @ dZ\s*\|[^\n]*gives (\(\d+, \d+\)): the gradient", text)
    assert row and row.group(1) == fmt_shape((hidden, vocab))
    assert len(re.findall(r"gives \(\d+, \d+\): the gradient", text)) == 2


def test_every_case_shows_the_reference_gradient_shapes(text: str) -> None:
    module = snippet("matmul_cases_shapes.py")
    K, B, H, V = module.K, module.B, module.H, module.V
    rng = np.random.default_rng(0)
    cases = {
        "matrix @ matrix": (lambda a, w: agnp.matmul(a, w), (B, H), (H, V)),
        "matrix @ vector": (lambda a, v: agnp.matmul(a, v), (H, V), (V,)),
        "vector @ matrix": (lambda u, w: agnp.matmul(u, w), (H,), (H, V)),
        "outer product": (lambda u, v: agnp.outer(u, v), (H,), (V,)),
        "batched": (lambda a, w: agnp.matmul(a, w), (K, B, H), (K, H, V)),
        "batched, shared W": (lambda a, w: agnp.matmul(a, w), (K, B, H), (H, V)),
    }
    for label, (forward, first_shape, second_shape) in cases.items():
        first, second = rng.normal(size=first_shape), rng.normal(size=second_shape)
        output = forward(first, second)
        g_first = autograd.grad(lambda x, f=forward, y=second, g=output: agnp.sum(f(x, y) * g))(first)
        g_second = autograd.grad(lambda y, f=forward, x=first, g=output: agnp.sum(f(x, y) * g))(second)
        pattern = (
            rf"\|\s*{re.escape(label)}\s*\|[^\n]*\|\s*{re.escape(fmt_shape(output.shape))}\s*\|"
            rf"[^|\n]*\|\s*{re.escape(fmt_shape(g_first.shape))}\s*\|"
            rf"[^|\n]*\|\s*{re.escape(fmt_shape(g_second.shape))}"
        )
        assert re.search(pattern, text), f"no row for {label}"


def test_shared_weight_is_summed_by_unbroadcast(text: str) -> None:
    module = snippet("shared_weight_recording.py")
    K, H, V = module.K, module.H, module.V
    reference = autograd.grad(lambda w: agnp.sum(agnp.matmul(module.stack, w) * module.upstream))(
        module.shared
    )
    np.testing.assert_allclose(module.shared_gradient, reference, rtol=1e-12)
    pattern = (
        rf"\|\s*\d+\s*\|\s*sum_leading\s*\|\s*0\s*\|\s*{re.escape(fmt_shape((H, V)))}"
        rf"\s*\|\s*{re.escape(fmt_shape((H, V)))}"
    )
    assert re.search(pattern, text)
    assert re.search(rf"\|\s*enter\s*\|\s*—\s*\|\s*{re.escape(fmt_shape((K, H, V)))}", text)


def test_pytorch_linear_layout_and_gradients() -> None:
    """Exercise 1: PyTorch 2.13's `torch.nn.Linear` stores W as (out, in), computes x Wᵀ + b, and
    its autograd gives dx = G W, dW = Gᵀ x, db = Σ G, the answers the page derives."""
    torch = pytest.importorskip("torch")
    assert torch.__version__.split("+")[0].startswith("2.13")
    module = snippet("exercises.py")
    layer = torch.nn.Linear(module.n_in, module.n_out, dtype=torch.float64)
    assert tuple(layer.weight.shape) == (module.n_out, module.n_in)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(module.W))
        layer.bias.copy_(torch.tensor(module.b))
    x = torch.tensor(module.x, requires_grad=True)
    y = layer(x)
    torch.testing.assert_close(y.detach(), x.detach() @ layer.weight.detach().T + layer.bias.detach())
    y.backward(torch.tensor(module.G))
    G, W = module.G, module.W
    np.testing.assert_allclose(x.grad.numpy(), G @ W, rtol=1e-12)
    np.testing.assert_allclose(layer.weight.grad.numpy(), G.T @ module.x, rtol=1e-12)
    np.testing.assert_allclose(layer.bias.grad.numpy(), G.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(module.dx, G @ W, rtol=1e-12)


def test_grad_einsum_builds_the_subscripts_the_page_names(monkeypatch) -> None:
    """The einsum note: the cotangent of A in einsum('bh,hv->bv', A, W) is einsum('bv,hv->bh', G, W)."""
    import ad_core.numpy as anp
    from ad_core import make_vjp
    from ad_core.numpy import vjps

    specs = []
    original = vjps.anp.einsum

    def recording_einsum(spec, *operands, **kwargs):
        specs.append(spec)
        return original(spec, *operands, **kwargs)

    rng = np.random.default_rng(0)
    A, W = rng.normal(size=(3, 4)), rng.normal(size=(4, 5))
    vjp, _ = make_vjp(lambda a: anp.einsum("bh,hv->bv", a, W))(A)
    monkeypatch.setattr(vjps.anp, "einsum", recording_einsum)
    gradient = vjp(np.ones((3, 5)))
    assert specs == ["bv,hv->bh"]
    np.testing.assert_allclose(gradient, np.ones((3, 5)) @ W.T)


def test_quadratic_form_exercise_attributes_each_contribution_to_the_right_use(text: str) -> None:
    """Exercise 3: in xᵀ M x the left factor xᵀ receives M x and the right factor Mᵀ x (the page
    once had them the other way round). HIPS/autograd 1.9.1 differentiates each use on its own."""
    module = snippet("exercises.py")
    M, x = module.M, module.vector
    through_left = autograd.grad(lambda u: agnp.dot(u, agnp.dot(M, x)))(x)
    through_right = autograd.grad(lambda u: agnp.dot(x, agnp.dot(M, u)))(x)
    np.testing.assert_allclose(through_left, M @ x)
    np.testing.assert_allclose(through_right, M.T @ x)
    assert not np.allclose(through_left, M.T @ x), "M must be non-symmetric for the test to bite"
    assert r"the left factor \(x^\top\) receives \(M x\)" in text
    assert r"\(M x\) from the right factor" not in text
