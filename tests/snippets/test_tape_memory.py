"""The chapter "Memory: what the tape keeps": the claims it makes about other systems' checkpoints,
each shown by running that system."""

from __future__ import annotations

import gc
import math
import tracemalloc

import numpy as np


def sin_chain(x, sin, depth=4):
    for _ in range(depth):
        x = sin(x) * 0.9
    return x


def test_pytorch_checkpoint_reruns_the_block_once_during_backward() -> None:
    """PyTorch 2.13's `torch.utils.checkpoint.checkpoint` with `use_reentrant=False`: the block runs
    once in the forward pass and once more in the backward pass, but the rerun stops early (its
    default `early_stop=True`) once the last saved tensor it needs is recomputed, the input of the
    last layer's `sin`: the block's final line is not reached. The reentrant variant, like
    `ad_core.checkpoint`, reruns the whole block."""
    import torch
    from torch.utils.checkpoint import checkpoint

    assert torch.__version__.startswith("2.13")

    def run(use_reentrant):
        calls = []

        def block(x):
            calls.append("start")
            for index in range(4):
                calls.append(index)
                x = torch.sin(x) * 0.9
            calls.append("end")
            return x

        x = torch.linspace(-1.0, 1.0, 5, dtype=torch.float64, requires_grad=True)
        loss = checkpoint(block, x, use_reentrant=use_reentrant).sum()
        forward = list(calls)
        loss.backward()
        return x, forward, calls[len(forward):]

    whole = ["start", 0, 1, 2, 3, "end"]
    x, forward, backward = run(use_reentrant=False)
    assert forward == whole
    assert backward == ["start", 0, 1, 2, 3], "stops in the last sin, once its input is saved"
    assert run(use_reentrant=True)[1:] == (whole, whole)
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
    program recomputes, from the block's input, the `sin` calls whose outputs the backward pass
    needs: three of the four (`ad_core.checkpoint` reruns all four); without the checkpoint there
    is no `remat`, and each `sin` runs once."""
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
    assert sins(remat.params["jaxpr"]) == 3, "the last sin's output is not needed: not recomputed"
    assert remat.invars[0] is saved.invars[0], "recomputed from the block's input"


def _live_activations_after(make_vjp, loss, x) -> float:
    """Bytes alive between the passes, after `make_vjp(loss)(x)`, in activations of `x`'s size."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = make_vjp(loss, x)
        gc.collect()
        return (tracemalloc.get_traced_memory()[0] - before) / x.nbytes
    finally:
        del kept
        tracemalloc.stop()


def test_autograd_checkpoint_keeps_as_much_as_the_plain_tape() -> None:
    """HIPS/autograd 1.9.1: an 8-layer `sin` block keeps its 7 intermediates (the inputs of its
    `sin`s but x) between the passes, with or without `autograd.checkpoint`: nothing is saved."""
    import autograd
    import autograd.numpy as agnp
    from autograd.core import make_vjp

    depth = 8

    def block(x):
        return sin_chain(x, agnp.sin, depth)

    x = np.random.default_rng(0).standard_normal(30_000)
    plain = _live_activations_after(make_vjp, lambda x: agnp.sum(block(x)), x)
    saved = _live_activations_after(make_vjp, lambda x: agnp.sum(autograd.checkpoint(block)(x)), x)
    assert math.floor(plain + 0.1) == depth - 1
    assert math.floor(saved + 0.1) == depth - 1
    # control: ad_core's checkpoint does keep less, so the measurement can tell the two apart
    import ad_core.numpy as anp
    from ad_core import checkpoint
    from ad_core import make_vjp as ad_make_vjp

    ours = _live_activations_after(
        lambda f, x: ad_make_vjp(f)(x),
        lambda x: anp.sum(checkpoint(lambda x: sin_chain(x, anp.sin, depth))(x)), x)
    assert math.floor(ours + 0.1) == 0


def test_checkpoint_saves_nothing_on_the_outer_tape_of_a_second_derivative() -> None:
    """`ad_core.checkpoint` under `grad` inside `make_vjp`: the outer trace records the inner
    backward pass, recomputation included, so the outer tape keeps as many whole activations
    with the checkpoint as without it."""
    import ad_core.numpy as anp
    from ad_core import checkpoint, grad
    from ad_core import make_vjp as ad_make_vjp

    depth = 8
    x = np.random.default_rng(0).standard_normal(30_000)
    weights = np.random.default_rng(1).standard_normal(30_000)

    def block(x):
        return sin_chain(x, anp.sin, depth)

    def outer(inner_block):
        return lambda x: anp.sum(grad(lambda x: anp.sum(inner_block(x)))(x) * weights)

    plain = _live_activations_after(lambda f, x: ad_make_vjp(f)(x), outer(block), x)
    saved = _live_activations_after(lambda f, x: ad_make_vjp(f)(x), outer(checkpoint(block)), x)
    assert plain > 2 * depth, "the outer tape holds the inner backward pass"
    assert math.floor(saved + 0.1) == math.floor(plain + 0.1)
