"""The chapter "Memory: what the tape keeps": the claims it makes about other systems' checkpoints,
each shown by running that system."""

from __future__ import annotations

import numpy as np


def sin_chain(x, sin, depth=4):
    for _ in range(depth):
        x = sin(x) * 0.9
    return x


def test_pytorch_checkpoint_reruns_the_block_once_during_backward() -> None:
    """PyTorch 2.13's `torch.utils.checkpoint.checkpoint` (non-reentrant): the block runs once in
    the forward pass and once more in the backward pass, as `ad_core.checkpoint` does."""
    import torch
    from torch.utils.checkpoint import checkpoint

    assert torch.__version__.startswith("2.13")
    calls = []

    def block(x):
        calls.append(phase)
        return sin_chain(x, torch.sin)

    x = torch.linspace(-1.0, 1.0, 5, dtype=torch.float64, requires_grad=True)
    phase = "forward"
    loss = checkpoint(block, x, use_reentrant=False).sum()
    assert calls == ["forward"]
    phase = "backward"
    loss.backward()
    assert calls == ["forward", "backward"]
    inputs = [x.detach().numpy()]
    for _ in range(3):
        inputs.append(np.sin(inputs[-1]) * 0.9)
    by_hand = np.prod([0.9 * np.cos(value) for value in inputs], axis=0)
    assert x.grad.shape == (5,)
    np.testing.assert_allclose(x.grad.numpy(), by_hand, rtol=1e-12)


def test_autograd_checkpoint_traces_the_block_twice_before_any_backward_pass() -> None:
    """HIPS/autograd 1.9.1's `checkpoint`: its VJP maker traces the block when the node is made,
    so the block runs twice in the forward pass and not at all in the backward pass."""
    from importlib.metadata import version

    import autograd
    import autograd.numpy as agnp
    from autograd.core import make_vjp

    assert version("autograd") == "1.9.1"
    calls = []

    def block(x):
        calls.append(phase)
        return sin_chain(x, agnp.sin)

    phase = "forward"
    vjp, _ = make_vjp(lambda x: agnp.sum(autograd.checkpoint(block)(x)), np.linspace(-1.0, 1.0, 5))
    assert calls == ["forward", "forward"]
    phase = "backward"
    vjp(1.0)
    assert calls == ["forward", "forward"]


def test_jax_checkpoint_recomputes_the_block_inside_the_gradient() -> None:
    """JAX 0.10.2's `jax.checkpoint`: the gradient's program carries a `remat` equation whose own
    program recomputes the block's `sin` calls from the block's input; without the checkpoint
    there is none, and the block's `sin` runs once."""
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2"

    def sins(jaxpr):
        return sum(1 for equation in jaxpr.eqns if equation.primitive.name == "sin")

    x = jnp.linspace(-1.0, 1.0, 5)
    plain = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(sin_chain(x, jnp.sin))))(x).jaxpr
    saved = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jax.checkpoint(
        lambda x: sin_chain(x, jnp.sin))(x))))(x).jaxpr
    assert not [eq for eq in plain.eqns if eq.primitive.name.startswith("remat")]
    assert sins(plain) == 4
    (remat,) = [eq for eq in saved.eqns if eq.primitive.name.startswith("remat")]
    assert sins(saved) == 4, "the forward pass runs every sin once"
    assert sins(remat.params["jaxpr"]) >= 1, "the backward part runs sin again"
    assert remat.invars[0] is saved.invars[0], "recomputed from the block's input"
