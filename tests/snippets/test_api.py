"""The API reference page: the claims its docstrings make, run against ad_core and, where they
compare with it, against HIPS/autograd 1.9.1."""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest

import ad_core
import ad_core.numpy as anp
from ad_core.misc import flatten
from ad_core.misc.optimizers import sgd
from ad_core.recorder import record
from bookkit import central_differences

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import autograd
    import autograd.numpy as agnp
    from autograd import differential_operators as ag_operators
    from autograd.misc import flatten as ag_flatten

RNG = np.random.default_rng(13)
X = RNG.standard_normal(3)


def test_autograd_is_the_version_the_page_names() -> None:
    from importlib.metadata import version

    assert version("autograd") == "1.9.1"


def test_hessian_vector_product_forward_over_reverse_equals_autograds_reverse_over_reverse() -> None:
    def f(w, np_):
        return np_.sum(np_.sin(w) ** 2 * np_.cos(w[0]))

    v = RNG.standard_normal(3)
    ours = ad_core.hessian_vector_product(lambda w: f(w, anp))(X, v)
    theirs = autograd.hessian_vector_product(lambda w: f(w, agnp))(X, v)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    np.testing.assert_allclose(ours, ad_core.hessian(lambda w: f(w, anp))(X) @ v, rtol=1e-12)
    with record() as rec:  # forward mode runs: tangents are pushed through the gradient
        ad_core.hessian_vector_product(lambda w: f(w, anp))(X, v)
    assert rec.of_kind("jvp") and rec.of_kind("vjp")
    # autograd 1.9.1: the gradient of <grad f, v>, reverse-over-reverse (the page links it).
    source = inspect.getsource(ag_operators.hessian_tensor_product)
    assert "return grad(vector_dot_grad, argnum)" in source
    assert autograd.hessian_vector_product is ag_operators.hessian_tensor_product
    assert ad_core.hessian_tensor_product is ad_core.hessian_vector_product


def test_make_ggnvp_default_needs_a_vector_output() -> None:
    def f(w):
        return anp.tanh(w) * anp.arange(1.0, 4.0)

    v = RNG.standard_normal(3)
    jac = ad_core.jacobian(f)(X)
    np.testing.assert_allclose(ad_core.make_ggnvp(f)(X)(v), jac.T @ jac @ v, rtol=1e-12)
    with pytest.raises(TypeError):
        ad_core.make_ggnvp(lambda w: anp.outer(w, w))(X)(v)
    with pytest.raises(TypeError):
        autograd.make_ggnvp(lambda w: agnp.outer(w, w))(X)(v)


def test_grad_returns_the_arguments_container_structure() -> None:
    gradient = ad_core.grad(lambda p: p["a"] * 2.0 + anp.sum(p["b"] ** 2))({"a": 1.0, "b": X})
    assert set(gradient) == {"a", "b"}
    np.testing.assert_allclose(gradient["b"], 2 * X)


def test_fft_repeated_axes_refused_here_and_by_autograd_only_for_real_transforms() -> None:
    a = RNG.standard_normal((4, 4))
    weights = RNG.standard_normal((4, 4))
    for name in ("fftn", "fft2", "rfftn", "irfftn"):
        with pytest.raises(NotImplementedError):
            ad_core.grad(lambda x, n=name: anp.sum(anp.abs(getattr(anp.fft, n)(x, axes=(0, 0)))))(a)
    for name in ("rfftn", "irfftn", "rfft2", "irfft2"):
        with pytest.raises(NotImplementedError):
            autograd.grad(lambda x, n=name: agnp.sum(agnp.abs(getattr(agnp.fft, n)(x, axes=(0, 0)))))(a)

    def loss(x):
        return agnp.sum(weights * agnp.real(agnp.fft.fftn(x, axes=(0, 0))))

    expected = central_differences(lambda x: float(loss(x)), a)
    np.testing.assert_allclose(autograd.grad(loss)(a), expected, atol=1e-6)


def test_complex_cotangent_convention_is_autograds() -> None:
    """For a real loss of z = x + iy the cotangent is dL/dx - i dL/dy, in both engines."""

    def loss(z, np_):
        return np_.real(z) ** 2 + 3.0 * np_.imag(z)

    z = 1.0 + 2.0j
    assert ad_core.grad(lambda z: loss(z, anp))(z) == 2.0 - 3.0j
    assert autograd.grad(lambda z: loss(z, agnp))(z) == 2.0 - 3.0j


def test_several_outputs_are_a_traced_tuple_without_field_names_in_both_engines() -> None:
    matrix = np.array([[2.0, 1.0], [1.0, 3.0]])
    assert hasattr(anp.linalg.eigh(matrix), "eigenvalues")
    seen = {}

    def ours(a):
        seen["ad_core"] = anp.linalg.eigh(a)
        return anp.sum(seen["ad_core"][0])

    def theirs(a):
        seen["autograd"] = agnp.linalg.eigh(a)
        return agnp.sum(seen["autograd"][0])

    ad_core.grad(ours)(matrix)
    autograd.grad(theirs)(matrix)
    for result in seen.values():
        assert not hasattr(result, "eigenvalues") and len(result) == 2
    with pytest.raises(NotImplementedError, match="qr"):
        ad_core.grad(lambda a: anp.sum(anp.linalg.qr(a)[0]))(matrix)


def test_flatten_with_an_integer_leaf() -> None:
    vector, unflatten = flatten({"a": 1, "b": 2.5})
    np.testing.assert_array_equal(vector, [1.0, 2.5])
    with pytest.raises(TypeError):
        unflatten(vector)
    with pytest.raises(TypeError):
        ag_flatten({"a": 1, "b": 2.5})


def test_sgd_step_under_a_constant_gradient() -> None:
    """v_i = -(1 - mu^i) g: the step eta v_i grows towards -eta g and never passes it."""
    g, eta, mu = np.array([2.0, -1.0]), 0.1, 0.9
    iterates = []
    sgd(lambda x, i: g, np.zeros(2), callback=lambda x, i, grad: iterates.append(x.copy()),
        num_iters=30, step_size=eta, mass=mu)
    steps = np.diff(np.array(iterates), axis=0)  # the step taken on iteration i = 1, ..., 29
    i = np.arange(1, 30)[:, None]
    np.testing.assert_allclose(steps, -eta * (1 - mu**i) * g, rtol=1e-12)
    assert np.all(np.abs(steps) < eta * np.abs(g))


def test_builtins_look_through_boxes_and_build_plain_containers_from_plain_values() -> None:
    from ad_core import builtins

    assert type(builtins.tuple([1.0, 2.0])) is tuple and type(builtins.dict(a=1.0)) is dict
    seen = {}

    def f(x):
        pair = builtins.tuple([x, 2.0 * x])
        seen["checks"] = (builtins.isinstance(pair, builtins.tuple), builtins.isinstance(pair, tuple),
                          builtins.type(x) is float)
        return pair[0] + pair[1]

    assert ad_core.grad(f)(1.0) == 3.0
    assert seen["checks"] == (True, True, True)
    for name in ("tuple", "list", "dict", "isinstance", "type"):
        assert getattr(ad_core, name) is getattr(builtins, name) and hasattr(autograd, name)
        assert name not in ad_core.__all__


def test_vector_jacobian_product_as_in_autograd() -> None:
    u = RNG.standard_normal((2, 3))
    ours = ad_core.vector_jacobian_product(lambda w: anp.stack([anp.sin(w), w**2]))(X, u)
    theirs = autograd.vector_jacobian_product(lambda w: agnp.stack([agnp.sin(w), w**2]))(X, u)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_page_lists_sections_in_the_order_its_introduction_gives(text: str) -> None:
    order = ["Differential operators", "Writing rules: ad_core.extend", "The NumPy wrapper",
             "SciPy: ad_core.scipy", "Flattening and optimizers", "Containers and type checks",
             "The recorder: ad_core.recorder", "Gradient checks"]
    headings = re.findall(r"^(.+)¶$", text, flags=re.MULTILINE)
    positions = [next(i for i, h in enumerate(headings) if h.startswith(name)) for name in order]
    assert positions == sorted(positions)


def test_numpy_section_names_the_three_kinds_of_wrapped_function() -> None:
    """The page said every function of `ad_core.numpy` is wrapped as a primitive; some are
    `notrace_primitive`s and some are Python functions built on primitives."""
    from pathlib import Path


    page = (Path(__file__).parents[2] / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    assert "every function wrapped as a\nprimitive" not in page
    assert anp.sin.is_primitive is True
    for name in ("argmax", "shape", "equal"):
        assert getattr(anp, name).is_primitive is False, name  # notrace_primitive
        assert f"`{name}`" in page or name == "equal"
    for name in ("concatenate", "stack", "array"):
        assert not hasattr(getattr(anp, name), "is_primitive"), name
        assert f"`{name}`" in page
