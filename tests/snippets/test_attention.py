"""The built chapter "Attention": the hand-written backward pass against PyTorch 2.13's
`scaled_dot_product_attention`, and the page's numbers recomputed from the snippet modules."""

from __future__ import annotations

import numpy as np
import pytest

from bookkit import load_snippet_module

attn = load_snippet_module("snippets/attention/_attention.py")


def torch_gradients(torch, inputs: dict, **sdpa_options) -> dict:
    Q, K, V = (torch.tensor(inputs[n], requires_grad=True) for n in ("Q", "K", "V"))
    out = torch.nn.functional.scaled_dot_product_attention(Q, K, V, **sdpa_options)
    out.backward(torch.tensor(inputs["dO"]))
    return {"O": out.detach().numpy(), "dQ": Q.grad.numpy(), "dK": K.grad.numpy(), "dV": V.grad.numpy()}


def test_hand_backward_matches_pytorch_sdpa() -> None:
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13")
    inputs = attn.make_inputs(np.random.default_rng(11))
    hand = attn.attention_backward(**inputs)
    output = attn.forward_values(inputs["Q"], inputs["K"], inputs["V"], inputs["M"])["O"]
    causal = torch_gradients(torch, inputs, is_causal=True)
    # The same mask given explicitly, as the additive float mask the chapter writes.
    explicit = torch_gradients(torch, inputs, attn_mask=torch.tensor(inputs["M"]))
    for reference in (causal, explicit):
        np.testing.assert_allclose(output, reference["O"], rtol=1e-12, atol=1e-13)
        for name in ("dQ", "dK", "dV"):
            np.testing.assert_allclose(hand[name], reference[name], rtol=1e-10, atol=1e-12)
    # Without the mask the gradients differ: the test can tell a causal pass from a plain one.
    plain = torch_gradients(torch, inputs)
    assert not np.allclose(hand["dK"], plain["dK"], atol=1e-3)


def test_unmasked_backward_matches_pytorch_sdpa() -> None:
    torch = pytest.importorskip("torch")
    inputs = attn.make_inputs(np.random.default_rng(12), masked=False)
    hand = attn.attention_backward(**inputs)
    reference = torch_gradients(torch, inputs)
    for name in ("dQ", "dK", "dV"):
        np.testing.assert_allclose(hand[name], reference[name], rtol=1e-10, atol=1e-12)


def test_page_shows_the_shape_table_and_masked_count(text: str) -> None:
    B, H, T = attn.BATCH, attn.HEADS, attn.LENGTH
    assert "(B, H, T, T)" in text and f"({B}, {H}, {T}, {T})" in text
    masked = B * H * T * (T - 1) // 2
    assert f"Of the {masked} masked entries" in text and f", {masked} are exactly zero" in text


def test_sdpa_fully_masked_row_is_zero_with_finite_gradients() -> None:
    """PyTorch 2.13's SDPA on a row whose every key is masked: output zero, no NaN in any
    gradient, and the same gradients as the chapter's double-`where` layer."""
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13")
    from ad_core import make_vjp

    causal = load_snippet_module("snippets/attention/causal_mask.py")
    inputs = attn.make_inputs(np.random.default_rng(13))
    inputs["M"] = causal.nothing_visible
    reference = torch_gradients(torch, inputs, attn_mask=torch.tensor(inputs["M"]))
    assert np.all(reference["O"][..., 0, :] == 0.0)
    safe = causal.attention_blind_rows_safe
    for index, name in enumerate(("dQ", "dK", "dV")):
        assert not np.any(np.isnan(reference[name]))
        args = [inputs["Q"], inputs["K"], inputs["V"]]

        def layer(x, index=index, args=args):
            return safe(*[x if i == index else a for i, a in enumerate(args)], inputs["M"])

        ours = make_vjp(layer)(args[index])[0](inputs["dO"])
        np.testing.assert_allclose(ours, reference[name], rtol=1e-10, atol=1e-12)
    # The zeroed-after layer gives NaN in dK where PyTorch does not: the test tells them apart.
    with np.errstate(invalid="ignore"):
        zeroed = make_vjp(lambda k: causal.attention_zeroed_after(inputs["Q"], k, inputs["V"], inputs["M"]))
        assert np.all(np.isnan(zeroed(inputs["K"])[0](inputs["dO"])))
