"""`ad_core.misc`: `flatten` round trips and derivatives, and the optimizers against autograd's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest
from autograd.misc import flatten as autograd_flatten
from autograd.misc import optimizers as autograd_optimizers

import ad_core
import ad_core.numpy as anp
from ad_core.misc import flatten, flatten_func, optimizers

from ._oracle import numerical_grad, numerical_jacobian


def nested_params(rng: np.random.Generator, dtype: Any = np.float64) -> dict:
    """A model-like tree: a dict (keys deliberately unsorted) of lists and tuples of arrays."""
    return {
        "w": rng.standard_normal((3, 2)).astype(dtype),
        "layers": [
            (rng.standard_normal(2).astype(dtype), rng.standard_normal(()).astype(dtype)),
            rng.standard_normal((1, 4)).astype(dtype),
        ],
        "b": (rng.standard_normal(5).astype(dtype),),
    }


def complex_params(rng: np.random.Generator) -> list:
    return [rng.standard_normal(2) + 1j * rng.standard_normal(2), {"z": rng.standard_normal((2, 2)) + 0j}]


def leaves(tree: Any) -> list:
    """The leaves in flatten's order (a dict's entries by sorted key), with the path to each."""
    if isinstance(tree, list | tuple):
        return [(f"[{i}]{path}", leaf) for i, item in enumerate(tree) for path, leaf in leaves(item)]
    if isinstance(tree, dict):
        return [(f"[{k!r}]{path}", leaf) for k in sorted(tree) for path, leaf in leaves(tree[k])]
    return [("", tree)]


def assert_same_tree(actual: Any, expected: Any) -> None:
    """Same container kinds at every level, same leaf shapes and dtypes, then the same values."""
    assert type(actual) is type(expected)
    if isinstance(expected, dict):
        assert list(actual) == list(expected)
        for key in expected:
            assert_same_tree(actual[key], expected[key])
    elif isinstance(expected, list | tuple):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            assert_same_tree(a, e)
    else:
        assert np.shape(actual) == np.shape(expected)
        assert np.asarray(actual).dtype == np.asarray(expected).dtype
        np.testing.assert_array_equal(actual, expected)


ROUND_TRIP_CASES: dict[str, Callable[[np.random.Generator], Any]] = {
    "nested-float64": nested_params,
    "nested-float32": lambda rng: nested_params(rng, np.float32),
    "mixed-float32-and-float64": lambda rng: [
        rng.standard_normal(3).astype(np.float32),
        rng.standard_normal(2),
    ],
    "complex": complex_params,
    "single-array": lambda rng: rng.standard_normal((2, 3)),
    "with-empty-containers": lambda rng: [(), rng.standard_normal(2), {"e": []}],
}


@pytest.mark.parametrize("make", ROUND_TRIP_CASES.values(), ids=ROUND_TRIP_CASES.keys())
def test_flatten_round_trip_keeps_containers_shapes_and_dtypes(make, rng) -> None:
    tree = make(rng)
    vector, unflatten = flatten(tree)
    expected_vector, autograd_unflatten = autograd_flatten(tree)
    assert vector.shape == expected_vector.shape
    assert vector.dtype == expected_vector.dtype
    np.testing.assert_array_equal(vector, expected_vector)
    assert_same_tree(unflatten(vector), tree)
    # Same leaf types as autograd's unflatten, too (a float32 leaf stays float32 in a float64 vector).
    assert_same_tree(unflatten(vector), autograd_unflatten(expected_vector))


def test_flatten_orders_dict_entries_by_sorted_key(rng) -> None:
    tree = nested_params(rng)
    vector, _ = flatten(tree)
    assert vector.shape == (sum(np.size(leaf) for _, leaf in leaves(tree)),)
    np.testing.assert_array_equal(vector, np.concatenate([np.ravel(leaf) for _, leaf in leaves(tree)]))


def test_flatten_of_python_scalars_gives_zero_dimensional_leaves() -> None:
    vector, unflatten = flatten({"a": 1.5, "b": [2.5, -1.0]})
    assert vector.shape == (3,)
    np.testing.assert_array_equal(vector, [1.5, 2.5, -1.0])
    rebuilt = unflatten(vector)
    assert [np.shape(leaf) for _, leaf in leaves(rebuilt)] == [(), (), ()]
    assert rebuilt == {"a": 1.5, "b": [2.5, -1.0]}


def loss_of_tree(tree: Any) -> Any:
    w = tree["w"]
    (first, scale), row = tree["layers"]
    (b,) = tree["b"]
    return anp.sum(anp.tanh(w) ** 2) + scale * anp.sum(first**3) + anp.sum(anp.sin(row)) * anp.sum(b**2)


def test_gradient_through_unflatten_matches_finite_differences(rng) -> None:
    vector, unflatten = flatten(nested_params(rng))

    def loss(v):
        return loss_of_tree(unflatten(v))

    gradient = ad_core.grad(loss)(vector)
    assert gradient.shape == vector.shape
    np.testing.assert_allclose(gradient, numerical_grad(loss, [vector]), rtol=1e-7, atol=1e-9)


def test_gradient_through_unflatten_matches_autograd(rng) -> None:
    tree = nested_params(rng)
    vector, unflatten = flatten(tree)
    _, autograd_unflatten = autograd_flatten(tree)

    def autograd_loss(v):
        t = autograd_unflatten(v)
        (first, scale), row = t["layers"]
        (b,) = t["b"]
        return (
            agnp.sum(agnp.tanh(t["w"]) ** 2)
            + scale * agnp.sum(first**3)
            + agnp.sum(agnp.sin(row)) * agnp.sum(b**2)
        )

    gradient = ad_core.grad(lambda v: loss_of_tree(unflatten(v)))(vector)
    expected = autograd.grad(autograd_loss)(vector)
    assert gradient.shape == expected.shape
    np.testing.assert_allclose(gradient, expected, rtol=1e-12, atol=1e-14)
    # Second order: unflatten is traced like any other function.
    hessian = ad_core.hessian(lambda v: loss_of_tree(unflatten(v)))(vector)
    assert hessian.shape == vector.shape * 2
    np.testing.assert_allclose(hessian, autograd.hessian(autograd_loss)(vector), rtol=1e-10, atol=1e-12)


def test_gradient_through_flatten_is_the_gradient_of_each_leaf(rng) -> None:
    tree = nested_params(rng)
    gradient = ad_core.grad(lambda t: anp.sum(flatten(t)[0] ** 3))(tree)
    expected = autograd.grad(lambda t: agnp.sum(autograd_flatten(t)[0] ** 3))(tree)
    assert_same_tree(gradient, expected)
    for (path, leaf), (_, grad_leaf) in zip(leaves(tree), leaves(gradient), strict=True):
        np.testing.assert_allclose(grad_leaf, 3 * leaf**2, rtol=1e-14, err_msg=path)


def test_forward_mode_through_unflatten_then_flatten_is_the_identity(rng) -> None:
    vector, unflatten = flatten(nested_params(rng))
    jacobian = ad_core.jacobian(lambda v: flatten(unflatten(v))[0])(vector)
    assert jacobian.shape == vector.shape * 2
    np.testing.assert_array_equal(jacobian, np.eye(vector.size))
    tangent = rng.standard_normal(vector.shape)
    _, pushed = ad_core.make_jvp(lambda v: flatten(unflatten(v))[0])(vector)(tangent)
    assert pushed.shape == vector.shape
    np.testing.assert_array_equal(pushed, tangent)


def test_flatten_func_maps_vectors_to_vectors(rng) -> None:
    tree = nested_params(rng)

    def doubled_leaves_and_scaled_weights(t, power):
        return {key: [leaf * 2.0 for _, leaf in leaves(value)] for key, value in t.items()}, power * t["w"]

    flat_fun, unflatten, flat_example = flatten_func(doubled_leaves_and_scaled_weights, tree)
    assert_same_tree(unflatten(flat_example), tree)
    out = flat_fun(flat_example, 3.0)
    assert out.shape == (flat_example.size + tree["w"].size,)
    np.testing.assert_array_equal(out[: flat_example.size], 2.0 * flat_example)
    jacobian = ad_core.jacobian(flat_fun)(flat_example, 3.0)
    assert jacobian.shape == out.shape + flat_example.shape
    expected = numerical_jacobian(flat_fun, [flat_example, 3.0], 0)
    np.testing.assert_allclose(jacobian, expected, rtol=1e-8, atol=1e-8)


def test_gradient_of_a_nested_container_element_read_twice(rng) -> None:
    """`p[0]` is read twice, so two tuple cotangents meet: they must be added element by
    element (Python's `+` would join them into a 4-tuple), for tuples and dicts alike."""
    w, b = rng.standard_normal(2), rng.standard_normal(3)
    gradient = ad_core.grad(lambda p: anp.sum(p[0][0] ** 2) + anp.sum(p[0][1]))([(w, b)])
    assert len(gradient) == 1 and type(gradient[0]) is tuple and len(gradient[0]) == 2
    assert gradient[0][0].shape == w.shape and gradient[0][1].shape == b.shape
    np.testing.assert_allclose(gradient[0][0], 2 * w, rtol=1e-15)
    np.testing.assert_allclose(gradient[0][1], np.ones(3), rtol=1e-15)

    layers = {"first": {"w": w, "b": b}}
    gradient = ad_core.grad(
        lambda p: anp.sum(p["first"]["w"] ** 3) + anp.sum(p["first"]["b"] * p["first"]["b"])
    )(layers)
    assert sorted(gradient["first"]) == ["b", "w"]
    np.testing.assert_allclose(gradient["first"]["w"], 3 * w**2, rtol=1e-14)
    np.testing.assert_allclose(gradient["first"]["b"], 2 * b, rtol=1e-14)


# --- optimizers -------------------------------------------------------------------------------

OPTIMIZER_SETTINGS = {
    "sgd": {"num_iters": 25, "step_size": 0.1, "mass": 0.8},
    "rmsprop": {"num_iters": 25, "step_size": 0.05, "gamma": 0.8},
    "adam": {"num_iters": 25, "step_size": 0.05, "b1": 0.8, "b2": 0.99},
}


def stochastic_loss(xp: Any, targets: np.ndarray) -> Callable[[Any, int], Any]:
    """A nonconvex loss whose minibatch depends on the iteration; each leaf is read once."""

    def loss(params, i):
        (v, s), t = params["layers"]
        (b,) = params["b"]
        target = targets[i % len(targets)]
        return (
            xp.sum(xp.tanh(params["w"] - target) ** 2)
            + xp.sum((v - 0.1 * i) ** 2)
            + s**2 * xp.sum(xp.cos(t))
            + xp.sum(xp.sin(b) * b)
        )

    return loss


@pytest.mark.parametrize("name", OPTIMIZER_SETTINGS)
def test_optimizer_iterates_match_autograd(name: str, rng) -> None:
    params = nested_params(rng)
    targets = rng.standard_normal((3, 3, 2))
    settings = OPTIMIZER_SETTINGS[name]
    ours, theirs = [], []

    def record(into):
        return lambda x, i, g: into.append((i, flatten(x)[0], flatten(g)[0]))

    result = getattr(optimizers, name)(
        ad_core.grad(stochastic_loss(anp, targets)), params, callback=record(ours), **settings
    )
    expected = getattr(autograd_optimizers, name)(
        autograd.grad(stochastic_loss(agnp, targets)), params, callback=record(theirs), **settings
    )
    assert len(ours) == len(theirs) == settings["num_iters"]
    for (i, x, g), (j, x_expected, g_expected) in zip(ours, theirs, strict=True):
        assert i == j
        assert x.shape == x_expected.shape
        np.testing.assert_allclose(x, x_expected, rtol=1e-12, atol=1e-12, err_msg=f"iterate {i}")
        np.testing.assert_allclose(g, g_expected, rtol=1e-12, atol=1e-12, err_msg=f"gradient {i}")
    assert_same_tree(zeroed_like(result), zeroed_like(expected))
    np.testing.assert_allclose(flatten(result)[0], autograd_flatten(expected)[0], rtol=1e-12, atol=1e-12)


def zeroed_like(tree: Any) -> Any:
    """The tree with every leaf replaced by zeros of its shape and dtype (compares structure)."""
    vector, unflatten = flatten(tree)
    return unflatten(np.zeros_like(vector))


@pytest.mark.parametrize("name", OPTIMIZER_SETTINGS)
def test_optimizer_decreases_a_convex_quadratic(name: str, rng) -> None:
    a = rng.standard_normal((4, 4))
    curvature = a @ a.T + np.eye(4)
    minimum = rng.standard_normal(4)

    def loss(params, i=0):
        d = params["x"] - minimum
        return 0.5 * anp.dot(d, anp.dot(curvature, d)) + anp.sum((params["y"] - 1.0) ** 2)

    start = {"x": np.zeros(4), "y": np.zeros((2, 2))}
    trained = getattr(optimizers, name)(ad_core.grad(loss), start, num_iters=200, step_size=0.02)
    assert trained["x"].shape == (4,)
    assert trained["y"].shape == (2, 2)
    assert loss(trained) < 0.1 * loss(start)
