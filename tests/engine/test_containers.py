"""`ad_core.containers` (HIPS/autograd semantics): a list, tuple or dict of arrays is
differentiated leaf by leaf, and the gradient comes back in the same container with each
leaf's shape; containers read with negative indices and `get`, returned from a function, and
differentiated twice."""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import (
    grad,
    make_jvp,
    make_vjp,
    value_and_grad,
)
from ad_core.test_util import check_grads

from ._oracle import (
    numerical_grad,
)


# Containers (HIPS/autograd semantics): a list, tuple or dict of arrays is differentiated leaf by
# leaf, and the gradient comes back in the same container with each leaf's shape.
def leaf_gradients_by_fd(loss, params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    def with_leaf(name):
        return lambda leaf: loss({**params, name: leaf})

    return {name: numerical_grad(with_leaf(name), [value]) for name, value in params.items()}


def two_layer_loss(params):
    hidden = anp.tanh(params["inputs"] @ params["w1"] + params["b1"])
    return anp.sum((hidden @ params["w2"]) ** 2)


def test_grad_of_a_dict_returns_a_dict_of_leaf_gradients(rng) -> None:
    params = {
        "inputs": rng.standard_normal((4, 3)),
        "w1": rng.standard_normal((3, 5)),
        "b1": rng.standard_normal(5),
        "w2": rng.standard_normal((5, 2)),
    }
    gradient = grad(two_layer_loss)(params)
    assert isinstance(gradient, dict)
    assert set(gradient) == set(params)
    expected = leaf_gradients_by_fd(two_layer_loss, params)
    for name, value in params.items():
        assert np.shape(gradient[name]) == value.shape, name
        np.testing.assert_allclose(gradient[name], expected[name], rtol=1e-7, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("container", [list, tuple], ids=["list", "tuple"])
def test_grad_of_a_sequence_returns_the_same_kind_of_sequence(container, rng) -> None:
    weights, bias = rng.standard_normal((3, 2)), rng.standard_normal(2)

    def loss(pair):
        w, b = pair
        return anp.sum(anp.sin(w) * b)

    gradient = grad(loss)(container([weights, bias]))
    assert type(gradient) is container
    d_weights, d_bias = gradient
    assert d_weights.shape == weights.shape
    assert d_bias.shape == bias.shape
    np.testing.assert_allclose(d_weights, np.cos(weights) * bias, rtol=1e-13)
    np.testing.assert_allclose(d_bias, np.sin(weights).sum(axis=0), rtol=1e-13)


def test_value_and_grad_of_a_nested_container(rng) -> None:
    params = {"layer": [rng.standard_normal(3), rng.standard_normal(3)], "scale": 1.5}

    def loss(p):
        first, second = p["layer"]
        return p["scale"] * anp.sum(first * second)

    value, gradient = value_and_grad(loss)(params)
    first, second = params["layer"]
    assert value == loss(params)
    np.testing.assert_allclose(gradient["layer"][0], params["scale"] * second, rtol=1e-14)
    np.testing.assert_allclose(gradient["layer"][1], params["scale"] * first, rtol=1e-14)
    np.testing.assert_allclose(gradient["scale"], np.sum(first * second), rtol=1e-14)


@pytest.mark.parametrize("container", [list, tuple], ids=["list", "tuple"])
def test_grad_through_a_negative_index_reaches_the_right_element(container, rng) -> None:
    # `params[-1]` is recorded as `params[len - 1]`; before, its cotangent was silently dropped.
    first, last = rng.standard_normal(3), rng.standard_normal((2, 2))

    def loss(params):
        return anp.sum(anp.sin(params[-1])) + anp.sum(params[0] * params[-2])

    gradient = grad(loss)(container([first, last]))
    assert type(gradient) is container
    assert gradient[0].shape == first.shape
    assert gradient[1].shape == last.shape
    np.testing.assert_allclose(gradient[1], numerical_grad(lambda w: loss([first, w]), [last]), rtol=1e-8)
    np.testing.assert_allclose(gradient[0], numerical_grad(lambda w: loss([w, last]), [first]), rtol=1e-8)


def test_dict_get_reads_a_traced_entry_or_returns_the_default(rng) -> None:
    params = {"w": rng.standard_normal(3)}
    fallback = rng.standard_normal(3)

    def loss(p, x):
        return anp.sum(p.get("w", x) ** 2) + anp.sum(p.get("missing", x))

    d_params, d_x = grad(loss, (0, 1))(params, fallback)
    assert d_params["w"].shape == (3,)
    assert d_x.shape == (3,)
    np.testing.assert_allclose(d_params["w"], 2 * params["w"], rtol=1e-14)
    np.testing.assert_allclose(d_x, np.ones(3), rtol=1e-14)


@pytest.mark.parametrize("make", [dict, list], ids=["dict", "list"])
def test_grad_of_a_function_that_takes_a_gradient_of_a_container(make, rng) -> None:
    # The inner gradient's input is a container box of the outer trace: building its
    # cotangent (zeros for the entries not read) failed on a dict box ("data type not
    # understood"), so HIPS/autograd's test_dict second derivatives raised; lists went through.
    a, b = rng.standard_normal((2, 3)), rng.standard_normal(4)
    keys = ("a", "b") if make is dict else (0, 1)
    pack = (lambda a, b: {"a": a, "b": b}) if make is dict else (lambda a, b: [a, b])

    def inner(p):
        return anp.sum(anp.sin(p[keys[0]]))  # entry 1 is not read: its cotangent is zeros

    def outer(p):
        g = grad(inner)(p)
        return anp.sum(anp.sin(g[keys[0]])) + anp.sum(g[keys[1]])

    gradient = grad(outer)(pack(a, b))
    assert np.shape(gradient[keys[0]]) == a.shape
    assert np.shape(gradient[keys[1]]) == b.shape
    np.testing.assert_allclose(gradient[keys[0]], np.cos(np.cos(a)) * -np.sin(a), rtol=1e-12)
    np.testing.assert_allclose(gradient[keys[1]], np.zeros(4), atol=0)
    check_grads(outer, modes=("rev",), order=1)(pack(a, b))


def test_a_function_may_return_a_list_tuple_or_dict_in_both_modes(rng) -> None:
    """Containers of traced values come back as one traced output: values unboxed, tangents
    and cotangents element by element (they came back boxed, with zero tangents, before)."""
    x, v = rng.standard_normal(3), rng.standard_normal(3)

    def several(x):
        return [x * 2.0, (anp.sin(x), {"cube": x**3, "constant": 1.5})]

    value, tangent = make_jvp(several)(x)(v)
    assert type(value[0]) is np.ndarray and value[1][1]["constant"] == 1.5
    np.testing.assert_allclose(value[1][0], np.sin(x), rtol=1e-15)
    assert tangent[0].shape == x.shape and tangent[1][1]["cube"].shape == x.shape
    np.testing.assert_allclose(tangent[0], 2.0 * v, rtol=1e-15)
    np.testing.assert_allclose(tangent[1][0], np.cos(x) * v, rtol=1e-14)
    np.testing.assert_allclose(tangent[1][1]["cube"], 3 * x**2 * v, rtol=1e-14)
    assert tangent[1][1]["constant"] == 0.0

    vjp, value = make_vjp(several)(x)
    u = [rng.standard_normal(3), (rng.standard_normal(3), {"cube": rng.standard_normal(3), "constant": 0.0})]
    cotangent = vjp(u)
    assert cotangent.shape == x.shape
    expected = 2.0 * u[0] + np.cos(x) * u[1][0] + 3 * x**2 * u[1][1]["cube"]
    np.testing.assert_allclose(cotangent, expected, rtol=1e-13)
