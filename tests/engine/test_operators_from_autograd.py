"""The rest of HIPS/autograd's operators: deriv, grad_and_aux, grad_named, make_hvp,
hessian_tensor_product, vector/tensor_jacobian_product, make_ggnvp, multigrad_dict, checkpoint.

Each is checked against HIPS/autograd 1.9.1 where autograd's own version works, and against
finite differences or a closed form always; shapes are asserted before values.
"""

from __future__ import annotations

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

import ad_core
import ad_core.numpy as anp

from ._oracle import numerical_grad, numerical_jacobian


def wavy(x, xp):
    """A scalar with a dense, non-constant Hessian, written once for both engines."""
    return xp.sum(xp.tanh(x) ** 3 * xp.cos(x[::-1]))


def test_deriv_of_a_scalar_function_matches_autograd_and_the_closed_form() -> None:
    for t in (-1.3, 0.0, 0.4):
        ours = ad_core.deriv(lambda t: anp.sin(t) * t)(t)
        assert np.shape(ours) == ()
        assert np.isclose(ours, np.cos(t) * t + np.sin(t), rtol=1e-13)
        assert np.isclose(ours, autograd.deriv(lambda t: agnp.sin(t) * t)(t), rtol=1e-13)


def test_grad_and_aux_returns_the_gradient_and_the_unboxed_aux(rng) -> None:
    x = rng.standard_normal(4)
    gradient, aux = ad_core.grad_and_aux(lambda x: (wavy(x, anp), {"pred": anp.tanh(x), "n": 4}))(x)
    expected, _ = autograd.grad_and_aux(lambda x: (wavy(x, agnp), agnp.tanh(x)))(x)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, expected, rtol=1e-12)
    # autograd 1.9.1 hands back boxes inside a dict aux; ad_core opens them.
    assert type(aux["pred"]) is np.ndarray and aux["n"] == 4
    np.testing.assert_allclose(aux["pred"], np.tanh(x), rtol=1e-15)


def test_grad_and_aux_keeps_an_outer_trace_alive_through_aux(rng) -> None:
    x = rng.standard_normal(3)

    def aux_of_inner(x):
        _, aux = ad_core.grad_and_aux(lambda y: (anp.sum(y * x), anp.sum(x**2) + anp.sum(y)))(x * 1.0)
        return aux

    gradient = ad_core.grad(aux_of_inner)(x)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, 2 * x + 1, rtol=1e-13)


def test_grad_and_aux_rejects_a_non_scalar_value(rng) -> None:
    with pytest.raises(TypeError, match="grad_and_aux"):
        ad_core.grad_and_aux(lambda x: (x * 2.0, None))(rng.standard_normal(3))


def test_grad_named_differentiates_the_named_parameter(rng) -> None:
    a, b = rng.standard_normal(3), rng.standard_normal(3)

    def weighted(a, b):
        return anp.sum(a * b**2)

    gradient = ad_core.grad_named(weighted, "b")(a, b)
    assert gradient.shape == b.shape
    np.testing.assert_allclose(gradient, 2 * a * b, rtol=1e-14)
    with pytest.raises(ValueError, match=r"has no parameter 'c'.*\['a', 'b'\]"):
        ad_core.grad_named(weighted, "c")


def test_make_hvp_returns_hessian_products_and_the_gradient(rng) -> None:
    x, v, w = rng.standard_normal(5), rng.standard_normal(5), rng.standard_normal(5)
    hvp, gradient = ad_core.make_hvp(lambda x: wavy(x, anp))(x)
    their_hvp, their_gradient = autograd.make_hvp(lambda x: wavy(x, agnp))(x)
    assert gradient.shape == x.shape and hvp(v).shape == x.shape
    np.testing.assert_allclose(gradient, their_gradient, rtol=1e-12)
    hessian = numerical_jacobian(lambda x: ad_core.grad(lambda x: wavy(x, anp))(x), [x], 0)
    for direction in (v, w):  # one trace, several products
        np.testing.assert_allclose(hvp(direction), their_hvp(direction), rtol=1e-12)
        np.testing.assert_allclose(hvp(direction), hessian @ direction, rtol=1e-6, atol=1e-8)


def test_hessian_tensor_product_is_the_hessian_vector_product(rng) -> None:
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    ours = ad_core.hessian_tensor_product(lambda x: wavy(x, anp))(x, v)
    theirs = autograd.hessian_tensor_product(lambda x: wavy(x, agnp))(x, v)
    assert ours.shape == x.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("vector_shape", [(4, 4), (4,)], ids=["full-output", "trailing-axis"])
def test_vector_jacobian_product_contracts_the_vector_axes(rng, vector_shape) -> None:
    x, vector = rng.standard_normal(4), rng.standard_normal(vector_shape)
    ours = ad_core.vector_jacobian_product(lambda x: anp.tanh(anp.outer(x, x)))(x, vector)
    theirs = autograd.vector_jacobian_product(lambda x: agnp.tanh(agnp.outer(x, x)))(x, vector)
    expected_shape = (4,) * (3 - len(vector_shape))
    assert ours.shape == expected_shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert ad_core.tensor_jacobian_product is ad_core.vector_jacobian_product


def test_make_ggnvp_is_jacobian_transpose_times_jacobian_for_the_default_loss(rng) -> None:
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    ours = ad_core.make_ggnvp(lambda x: anp.sin(x[:3] * x[1:]))(x)(v)
    theirs = autograd.make_ggnvp(lambda x: agnp.sin(x[:3] * x[1:]))(x)(v)
    jac = numerical_jacobian(lambda x: np.sin(x[:3] * x[1:]), [x], 0)
    assert ours.shape == x.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    np.testing.assert_allclose(ours, jac.T @ (jac @ v), rtol=1e-6, atol=1e-8)


def test_make_ggnvp_with_a_custom_outer_loss(rng) -> None:
    x, v = rng.standard_normal(3), rng.standard_normal(3)

    def inner(x, xp):
        return xp.exp(x) * x[::-1]

    def outer(y, xp):
        return xp.sum(xp.log1p(y**2))

    ours = ad_core.make_ggnvp(lambda x: inner(x, anp), lambda y: outer(y, anp))(x)(v)
    theirs = autograd.make_ggnvp(lambda x: inner(x, agnp), lambda y: outer(y, agnp))(x)(v)
    assert ours.shape == x.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_multigrad_dict_differentiates_every_argument_passed(rng) -> None:
    """autograd 1.9.1's own multigrad_dict needs the missing `funcsigs`; closed forms here."""
    a, b = rng.standard_normal(3), rng.standard_normal(3)

    def scaled_dot(a, b, scale=2.0):
        return anp.sum(a * b) * scale

    gradients = ad_core.multigrad_dict(scaled_dot)(a, b, scale=3.0)
    assert sorted(gradients) == ["a", "b", "scale"]
    assert gradients["a"].shape == a.shape and np.shape(gradients["scale"]) == ()
    np.testing.assert_allclose(gradients["a"], 3.0 * b, rtol=1e-14)
    np.testing.assert_allclose(gradients["b"], 3.0 * a, rtol=1e-14)
    assert np.isclose(gradients["scale"], np.sum(a * b), rtol=1e-14)
    assert sorted(ad_core.multigrad_dict(scaled_dot)(a, b)) == ["a", "b"]


def test_checkpoint_gives_the_same_gradient_by_recomputing(rng) -> None:
    x = rng.standard_normal(5)
    calls = []

    def block(x):
        calls.append(phase)
        return anp.tanh(anp.sin(x) * 2.0)

    checkpointed = ad_core.checkpoint(block)
    phase = "forward"
    vjp, _ = ad_core.make_vjp(lambda x: anp.sum(checkpointed(x) ** 2))(x)
    phase = "backward"
    gradient = vjp(1.0)
    assert calls == ["forward", "backward"], "once forward (untraced), once in the backward pass"
    theirs = autograd.grad(
        lambda x: agnp.sum(autograd.checkpoint(lambda x: agnp.tanh(agnp.sin(x) * 2.0))(x) ** 2)
    )(x)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, theirs, rtol=1e-12)
    np.testing.assert_allclose(
        gradient, numerical_grad(lambda x: np.sum(np.tanh(np.sin(x) * 2.0) ** 2), [x], 0), rtol=1e-7
    )


def test_checkpoint_keeps_no_intermediate_of_the_block_between_the_passes(rng) -> None:
    """Between the forward and the backward pass a checkpointed block holds only its input and
    output; without checkpointing the tape keeps every intermediate (here 8 arrays of 8 MB)."""
    import gc
    import tracemalloc

    x = rng.standard_normal(1_000_000)

    def block(x):
        for _ in range(8):
            x = anp.tanh(x) * 1.5
        return x

    def kept_bytes(fun):
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        vjp, _ = ad_core.make_vjp(lambda x: anp.sum(fun(x)))(x)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        return kept, vjp

    plain, plain_vjp = kept_bytes(block)
    checkpointed, checkpointed_vjp = kept_bytes(ad_core.checkpoint(block))
    assert plain > 8 * x.nbytes, plain
    assert checkpointed < 2 * x.nbytes, checkpointed
    np.testing.assert_allclose(checkpointed_vjp(1.0), plain_vjp(1.0), rtol=1e-14)


def scaled_block(x, w, scale=1.0):
    """A two-argument block with a keyword, in the traced NumPy."""
    return anp.tanh(x * w) * anp.sin(w) * scale


def scaled_block_numpy(x, w, scale=1.0):
    return np.tanh(x * w) * np.sin(w) * scale


def test_checkpoint_gradients_equal_the_unchecked_block_and_central_differences(rng) -> None:
    x, w = rng.standard_normal(4), rng.standard_normal(4)
    checkpointed = ad_core.checkpoint(scaled_block)

    def loss(block, x, w):
        return anp.sum(block(x, w, scale=1.5) ** 2 * anp.cos(x))

    for argnum in (0, 1):
        ours = ad_core.grad(lambda x, w: loss(checkpointed, x, w), argnum)(x, w)
        plain = ad_core.grad(lambda x, w: loss(scaled_block, x, w), argnum)(x, w)
        numerical = numerical_grad(
            lambda x, w: np.sum(scaled_block_numpy(x, w, 1.5) ** 2 * np.cos(x)), [x, w], argnum
        )
        assert ours.shape == plain.shape == (4,)
        np.testing.assert_allclose(ours, plain, rtol=1e-14)
        np.testing.assert_allclose(ours, numerical, rtol=1e-7)


def test_checkpoint_runs_a_two_argument_block_once_in_each_pass(rng) -> None:
    """Differentiating with respect to both arguments recomputes the block once, not once per
    argument: the node's two VJPs share one traced rerun."""
    x, w = rng.standard_normal(3), rng.standard_normal(3)
    calls = []

    def counted(x, w):
        calls.append(phase)
        return scaled_block(x, w)

    checkpointed = ad_core.checkpoint(counted)
    phase = "forward"
    vjp, _ = ad_core.make_vjp(lambda xw: anp.sum(checkpointed(xw[0], xw[1]) ** 2))((x, w))
    assert calls == ["forward"]
    phase = "backward"
    gradient_x, gradient_w = vjp(1.0)
    assert calls == ["forward", "backward"]
    assert gradient_x.shape == gradient_w.shape == (3,)
    expected = ad_core.grad(lambda x, w: anp.sum(scaled_block(x, w) ** 2), (0, 1))(x, w)
    np.testing.assert_allclose(gradient_x, expected[0], rtol=1e-14)
    np.testing.assert_allclose(gradient_w, expected[1], rtol=1e-14)
    phase = "second backward"
    vjp(2.0)  # each backward pass recomputes, once
    assert calls == ["forward", "backward", "second backward"]


def test_checkpoint_recomputes_once_for_each_row_of_a_jacobian(rng) -> None:
    x = rng.standard_normal(3)
    calls = []

    def counted(x):
        calls.append(1)
        return anp.sin(x) * x

    jac = ad_core.jacobian(lambda x: ad_core.checkpoint(counted)(x) * 2.0)(x)
    assert jac.shape == (3, 3)
    np.testing.assert_allclose(jac, np.diag(2 * (np.cos(x) * x + np.sin(x))), rtol=1e-14)
    assert len(calls) == 1 + 3, "one forward run, one rerun per backward pass (row)"


def test_checkpoint_frees_the_blocks_intermediates_before_the_backward_pass(rng) -> None:
    """A weak reference to a value the block computes inside: the plain tape keeps it (the
    product's VJP holds both factors), the checkpointed one lets it go when the block returns."""
    import gc
    import weakref

    x = rng.standard_normal(1000)
    inside = []

    def block(x):
        a = anp.sin(x)
        inside.append(weakref.ref(ad_core.tracer.getval(a)))
        return a * a

    def alive_after_forward(fun):
        inside.clear()
        vjp, _ = ad_core.make_vjp(lambda x: anp.sum(fun(x)))(x)
        gc.collect()
        return inside[0]() is not None, vjp

    kept_plain, plain_vjp = alive_after_forward(block)
    kept_checkpointed, checkpointed_vjp = alive_after_forward(ad_core.checkpoint(block))
    assert kept_plain, "the unchecked tape holds sin(x) until the backward pass"
    assert not kept_checkpointed, "the checkpointed block's sin(x) is gone after the forward pass"
    gradient = checkpointed_vjp(1.0)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, plain_vjp(1.0), rtol=1e-14)
    np.testing.assert_allclose(gradient, 2 * np.sin(x) * np.cos(x), rtol=1e-13)


def test_checkpoint_second_derivatives_equal_the_unchecked_block(rng) -> None:
    x, w = rng.standard_normal(3), rng.standard_normal(3)
    checkpointed = ad_core.checkpoint(scaled_block)

    def loss(block):
        return lambda x: anp.sum(block(x, w) ** 3)

    ours = ad_core.hessian(loss(checkpointed))(x)
    plain = ad_core.hessian(loss(scaled_block))(x)
    assert ours.shape == plain.shape == (3, 3)
    np.testing.assert_allclose(ours, plain, rtol=1e-13)
    numerical = numerical_jacobian(ad_core.grad(loss(scaled_block)), [x], 0)
    np.testing.assert_allclose(ours, numerical, rtol=1e-6, atol=1e-9)
    nested = ad_core.grad(lambda x: anp.sum(ad_core.grad(loss(checkpointed))(x) * w))(x)
    assert nested.shape == (3,)
    np.testing.assert_allclose(nested, plain @ w, rtol=1e-13)


def test_checkpoint_forward_mode_reruns_the_block_for_the_tangent(rng) -> None:
    """Forward mode keeps no tape; the JVP reruns the block under make_jvp, so make_jvp and
    forward-over-reverse Hessian-vector products work through a checkpoint."""
    x, w, v = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
    checkpointed = ad_core.checkpoint(scaled_block)
    value, tangent = ad_core.make_jvp(lambda x: checkpointed(x, w))(x)(v)
    assert value.shape == tangent.shape == (3,)
    np.testing.assert_allclose(value, scaled_block_numpy(x, w), rtol=1e-15)
    expected = numerical_jacobian(lambda x: scaled_block_numpy(x, w), [x], 0) @ v
    np.testing.assert_allclose(tangent, expected, rtol=1e-7)
    hvp = ad_core.hessian_vector_product(lambda x: anp.sum(checkpointed(x, w) ** 3))(x, v)
    plain = ad_core.hessian(lambda x: anp.sum(scaled_block(x, w) ** 3))(x) @ v
    assert hvp.shape == (3,)
    np.testing.assert_allclose(hvp, plain, rtol=1e-12)


def test_checkpoint_takes_and_returns_containers(rng) -> None:
    x = rng.standard_normal(3)
    pair = ad_core.checkpoint(lambda x: (anp.sin(x), anp.cos(x)))
    gradient = ad_core.grad(lambda x: anp.sum(pair(x)[0] * pair(x)[1]))(x)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, np.cos(2 * x), rtol=1e-13)
    product = ad_core.checkpoint(lambda xs: xs[0] * xs[1])
    gradient = ad_core.grad(lambda x: anp.sum(product([x, x * 2.0])))(x)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, 4.0 * x, rtol=1e-14)


def test_tensor_jacobian_product_contracts_the_leading_output_axes(rng) -> None:
    """`v` of shape (5, 4) against an output of shape (5, 4, 3): the leading axes, as in
    autograd (`tensordot(v, f(x), v.ndim)`); an output that is not symmetric tells them apart."""
    x, vector = rng.standard_normal((5, 4, 3)), rng.standard_normal((5, 4))
    ours = ad_core.tensor_jacobian_product(lambda a: anp.tanh(a) * anp.arange(3.0))(x, vector)
    theirs = autograd.tensor_jacobian_product(lambda a: agnp.tanh(a) * agnp.arange(3.0))(x, vector)
    assert ours.shape == (3, 5, 4, 3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_autograd_checkpoint_runs_the_block_twice_in_the_forward_pass(rng) -> None:
    """The difference `ad_core.checkpoint`'s docstring states: HIPS/autograd 1.9.1 builds the
    block's VJP (tracing the block again) when the node is made, before any backward pass."""
    calls = []

    def block(x):
        calls.append(phase)
        return agnp.tanh(agnp.sin(x) * 2.0)

    from autograd.core import make_vjp as autograd_make_vjp

    phase = "forward"
    vjp, _ = autograd_make_vjp(lambda x: agnp.sum(autograd.checkpoint(block)(x) ** 2), rng.standard_normal(3))
    phase = "backward"
    vjp(1.0)
    assert calls == ["forward", "forward"]
