"""`ad_core.core`: the backward pass adds cotangents (dense and sparse container ones entry by
entry), nodes keep no value a rule does not read, and `def_linear` defines forward mode."""

from __future__ import annotations

import numpy as np

import ad_core.numpy as anp
from ad_core import (
    grad,
)
from ad_core.extend import (
    defvjp,
    primitive,
)


@primitive
def pair_product(pair):
    """A primitive that takes a whole container and gives it a dense (tuple) cotangent."""
    return pair[0] * pair[1]


defvjp(pair_product, lambda ans, pair: lambda g: (g * pair[1], g * pair[0]))


def test_dense_and_sparse_container_cotangents_add_entry_by_entry(rng) -> None:
    """A traced tuple reaches two calls that each return a dense tuple cotangent, and one read
    that returns a sparse one: the three must be added entry by entry (Python's tuple + tuple
    would join them end to end)."""
    pair = (rng.standard_normal(3), rng.standard_normal(3))

    def loss(pair):
        return anp.sum(pair_product(pair)) + anp.sum(pair_product(pair) ** 2) + anp.sum(anp.sin(pair[0]))

    gradient = grad(loss)(pair)
    assert type(gradient) is tuple and [g.shape for g in gradient] == [(3,), (3,)]
    product = pair[0] * pair[1]
    np.testing.assert_allclose(gradient[0], pair[1] * (1 + 2 * product) + np.cos(pair[0]), rtol=1e-13)
    np.testing.assert_allclose(gradient[1], pair[0] * (1 + 2 * product), rtol=1e-13)


def test_an_output_no_rule_reads_is_freed_after_the_forward_pass(rng) -> None:
    """Nodes keep shapes, not values: `x * w + b` is read by no VJP closure (tanh's rule reads
    tanh's own output), so once the trace is done nothing holds it; `x * w` is read by
    nothing either, while the output of tanh is kept for its rule."""
    import weakref

    from ad_core.core import make_vjp as core_make_vjp

    x, w, b = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(4)
    seen = {}

    def model(w):
        pre_activation = x * w + b
        seen["pre_activation"] = weakref.ref(pre_activation._value)
        activation = anp.tanh(pre_activation)
        seen["activation"] = weakref.ref(activation._value)
        return anp.sum(activation)

    vjp, _ = core_make_vjp(model, w)
    assert seen["pre_activation"]() is None
    assert seen["activation"]() is not None
    expected = np.sum(x * (1 - np.tanh(x * w + b) ** 2), axis=0)
    np.testing.assert_allclose(vjp(1.0), expected, rtol=1e-12)
