"""The public surface: operators, their calling conventions, ad_core.extend, and ArrayBox methods."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import ad_core
import ad_core.numpy as anp
from ad_core import (
    elementwise_grad,
    grad,
    hessian,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_jvp,
    make_vjp,
    value_and_grad,
)
from ad_core.extend import (
    Box,
    def_linear,
    defjvp,
    defvjp,
    getval,
    primitive,
    unbroadcast_f,
    vspace,
)
from ad_core.test_util import check_grads

from ._oracle import (
    directional_derivative,
    numerical_grad,
    numerical_jacobian,
    numerical_vjp,
)


def weighted_product(x, y, scale=1.0):
    return scale * anp.sum(anp.sin(x) * y**2)


def test_grad_differentiates_the_chosen_argument(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    for argnum in (0, 1):
        computed = grad(weighted_product, argnum=argnum)(x, y)
        assert computed.shape == (3,)
        np.testing.assert_allclose(computed, numerical_grad(weighted_product, [x, y], argnum), rtol=1e-8)


def test_grad_accepts_a_negative_argnum(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    np.testing.assert_array_equal(
        grad(weighted_product, argnum=-1)(x, y), grad(weighted_product, argnum=1)(x, y)
    )


def test_grad_passes_keyword_arguments_through(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    np.testing.assert_allclose(
        grad(weighted_product)(x, y, scale=3.0), 3.0 * grad(weighted_product)(x, y), rtol=1e-14
    )


def test_grad_with_tuple_argnum_returns_one_gradient_per_argument(rng) -> None:
    # HIPS/autograd accepts argnum=(0, 1) and returns a tuple of gradients.
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    d_dx, d_dy = grad(weighted_product, argnum=(0, 1))(x, y)
    np.testing.assert_array_equal(d_dx, grad(weighted_product, argnum=0)(x, y))
    np.testing.assert_array_equal(d_dy, grad(weighted_product, argnum=1)(x, y))


def test_grad_of_a_python_float_is_a_scalar() -> None:
    computed = grad(lambda t: t**3)(2.0)
    assert np.shape(computed) == ()
    np.testing.assert_allclose(computed, numerical_grad(lambda t: t**3, [2.0]), rtol=1e-10)


def test_value_and_grad_returns_both(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    value, gradient = value_and_grad(weighted_product)(x, y)
    assert value == weighted_product(x, y)
    np.testing.assert_array_equal(gradient, grad(weighted_product)(x, y))


def test_elementwise_grad_is_the_diagonal_of_the_jacobian(rng) -> None:
    x = rng.standard_normal((2, 3))
    computed = elementwise_grad(anp.tanh)(x)
    assert computed.shape == x.shape
    np.testing.assert_allclose(computed, 1.0 - np.tanh(x) ** 2, rtol=1e-13)


def test_jacobian_has_output_shape_then_input_shape(rng) -> None:
    x = rng.standard_normal((2, 3))
    weights = rng.standard_normal((4, 3))

    def fun(m):
        return anp.tanh(anp.dot(m, weights.T))

    computed = jacobian(fun)(x)
    assert computed.shape == (2, 4, 2, 3)
    np.testing.assert_allclose(computed, numerical_jacobian(fun, [x], 0), rtol=1e-7, atol=1e-9)


def test_jacobian_of_a_scalar_function_has_the_input_shape(rng) -> None:
    x = rng.standard_normal(3)
    np.testing.assert_allclose(jacobian(lambda v: anp.sum(v**2))(x), 2 * x, rtol=1e-14)


def test_hessian_and_hessian_vector_product_agree(rng) -> None:
    x, v = rng.standard_normal(4), rng.standard_normal(4)

    def fun(p):
        return anp.sum(anp.exp(p) * p[::-1])

    full = hessian(fun)(x)
    assert full.shape == (4, 4)
    np.testing.assert_allclose(hessian_vector_product(fun)(x, v), full @ v, rtol=1e-12, atol=1e-12)


def test_make_vjp_traces_once_and_serves_many_cotangents(rng) -> None:
    x = rng.standard_normal(3)

    def fun(v):
        return anp.outer(v, v)

    vjp, value = make_vjp(fun)(x)
    np.testing.assert_array_equal(value, np.outer(x, x))
    for _ in range(3):
        cotangent = rng.standard_normal((3, 3))
        np.testing.assert_allclose(
            vjp(cotangent), numerical_vjp(fun, [x], 0, cotangent), rtol=1e-8, atol=1e-10
        )


def test_make_jvp_returns_value_and_directional_derivative(rng) -> None:
    x, tangent = rng.standard_normal(3), rng.standard_normal(3)
    value, computed = make_jvp(anp.sin)(x)(tangent)
    np.testing.assert_array_equal(value, np.sin(x))
    np.testing.assert_allclose(computed, directional_derivative(anp.sin, [x], 0, tangent), rtol=1e-9)


def test_make_jvp_and_make_vjp_take_argnum(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    tangent = rng.standard_normal(3)
    _, forward = make_jvp(lambda a, b: a * anp.exp(b), 1)(x, y)(tangent)
    vjp, _ = make_vjp(lambda a, b: a * anp.exp(b), 1)(x, y)
    np.testing.assert_allclose(forward, x * np.exp(y) * tangent, rtol=1e-14)
    np.testing.assert_allclose(vjp(tangent), x * np.exp(y) * tangent, rtol=1e-14)


def test_holomorphic_grad_of_a_polynomial() -> None:
    z = 0.3 + 1.2j
    np.testing.assert_allclose(holomorphic_grad(lambda w: w**3 + 2.0 * w)(z), 3 * z**2 + 2.0, rtol=1e-14)


def test_check_grads_is_exported_at_the_top_level() -> None:
    assert ad_core.check_grads is check_grads


def test_random_module_matches_numpy_random() -> None:
    # ad_core.numpy.random must hand back plain NumPy randomness (it has nothing to differentiate).
    ours = anp.random.RandomState(7).standard_normal(5)
    theirs = np.random.RandomState(7).standard_normal(5)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(
        anp.random.default_rng(3).normal(size=2), np.random.default_rng(3).normal(size=2)
    )


def test_random_values_inside_a_differentiated_function_are_constants() -> None:
    def noisy(x):
        noise = anp.random.RandomState(0).standard_normal(x.shape)
        return anp.sum(x * noise)

    x = np.ones(4)
    np.testing.assert_array_equal(grad(noisy)(x), np.random.RandomState(0).standard_normal(4))


# ArrayBox methods: each must trace exactly like the function form.
METHOD_VS_FUNCTION = {
    "sum": (lambda x: x.sum(axis=0), lambda x: anp.sum(x, axis=0)),
    "mean": (lambda x: x.mean(axis=1), lambda x: anp.mean(x, axis=1)),
    "max": (lambda x: x.max(), anp.max),
    "min": (lambda x: x.min(axis=0), lambda x: anp.min(x, axis=0)),
    "reshape": (lambda x: x.reshape(4, 3), lambda x: anp.reshape(x, (4, 3))),
    "T": (lambda x: x.T, anp.transpose),
    "transpose": (lambda x: x.transpose(), anp.transpose),
    "dot": (lambda x: x.dot(np.arange(4.0)), lambda x: anp.dot(x, np.arange(4.0))),
    "squeeze": (lambda x: x[:1].squeeze(), lambda x: anp.squeeze(x[:1])),
    "astype-float": (lambda x: x.astype(float) * x, lambda x: x * x),
}


@pytest.mark.parametrize("name", list(METHOD_VS_FUNCTION))
def test_array_box_method_traces_like_the_function(name: str, rng) -> None:
    method_form, function_form = METHOD_VS_FUNCTION[name]
    x = rng.permutation(12).reshape(3, 4) * 0.25 - 1.0  # distinct entries: no ties for max/min
    weights = rng.standard_normal(np.shape(function_form(x)))
    by_method = grad(lambda v: anp.sum(weights * method_form(v)))(x)
    by_function = grad(lambda v: anp.sum(weights * function_form(v)))(x)
    assert by_method.shape == x.shape
    np.testing.assert_allclose(by_method, by_function, rtol=1e-14)
    np.testing.assert_allclose(
        by_method, numerical_grad(lambda v: np.sum(weights * function_form(v)), [x]), rtol=1e-8, atol=1e-10
    )


def test_len_and_iteration_over_a_traced_array(rng) -> None:
    x = rng.standard_normal(4)

    def sum_of_squares_by_loop(v):
        assert len(v) == 4
        total = 0.0
        for entry in v:
            total = total + entry**2
        return total

    np.testing.assert_allclose(grad(sum_of_squares_by_loop)(x), 2 * x, rtol=1e-14)


def test_comparisons_on_traced_values_return_plain_booleans(rng) -> None:
    seen = {}

    def branchy(v):
        seen["elementwise"] = v > 0.0
        seen["scalar"] = v[0] < v[1]
        seen["equal"] = v == v
        return anp.sum(anp.where(v > 0.0, v, -v))

    x = rng.standard_normal(4)
    gradient = grad(branchy)(x)
    for name, result in seen.items():
        assert not isinstance(result, Box), f"{name} comparison returned a Box"
    assert seen["elementwise"].dtype == bool
    assert isinstance(seen["scalar"], (bool, np.bool_))
    assert bool(seen["scalar"]) == bool(x[0] < x[1])
    np.testing.assert_array_equal(gradient, np.sign(x))


def test_traced_values_are_boxes_and_vspace_describes_them(rng) -> None:
    x = rng.standard_normal((2, 3))
    seen = {}

    def spy(v):
        seen["box"] = v
        return anp.sum(v)

    grad(spy)(x)
    assert isinstance(seen["box"], Box)
    space = vspace(x)
    assert space.shape == (2, 3)
    assert space.dtype == np.float64
    assert vspace(seen["box"]).shape == (2, 3)


def test_user_primitive_with_vjp_and_jvp_rules(rng) -> None:
    @primitive
    def softplus(x):
        return np.log1p(np.exp(x))

    defvjp(softplus, lambda ans, x: lambda g: g / (1.0 + np.exp(-x)))
    defjvp(softplus, lambda g, ans, x: g / (1.0 + np.exp(-x)))
    x = rng.standard_normal(5)
    expected = numerical_grad(lambda v: np.sum(np.log1p(np.exp(v))), [x])
    np.testing.assert_allclose(grad(lambda v: anp.sum(softplus(v)))(x), expected, rtol=1e-9)
    np.testing.assert_allclose(elementwise_grad(softplus)(x), expected, rtol=1e-9)
    np.testing.assert_allclose(make_jvp(softplus)(x)(np.ones(5))[1], expected, rtol=1e-9)


def test_def_linear_makes_the_jvp_the_function_itself(rng) -> None:
    # As in HIPS/autograd, def_linear defines forward mode only: for f linear in each argument,
    # the JVP with respect to an argument is f applied with the tangent in that slot.
    @primitive
    def scale_rows(weights, x):
        return weights[:, None] * x

    def_linear(scale_rows)
    weights, x = rng.standard_normal(3), rng.standard_normal((3, 2))
    tangent_x, tangent_w = rng.standard_normal((3, 2)), rng.standard_normal(3)
    _, along_x = make_jvp(scale_rows, 1)(weights, x)(tangent_x)
    _, along_w = make_jvp(scale_rows, 0)(weights, x)(tangent_w)
    np.testing.assert_allclose(
        along_x, directional_derivative(scale_rows, [weights, x], 1, tangent_x), rtol=1e-9
    )
    np.testing.assert_allclose(
        along_w, directional_derivative(scale_rows, [weights, x], 0, tangent_w), rtol=1e-9
    )


def test_unbroadcast_f_gives_a_user_rule_the_input_shape(rng) -> None:
    @primitive
    def shifted_product(x, y):
        return x * y + 1.0

    defvjp(
        shifted_product,
        lambda ans, x, y: unbroadcast_f(x, lambda g: g * y),
        lambda ans, x, y: unbroadcast_f(y, lambda g: g * x),
    )
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((3,))
    d_dy = grad(lambda b: anp.sum(shifted_product(x, b)))(y)
    assert d_dy.shape == (3,)
    np.testing.assert_allclose(d_dy, x.sum(axis=0), rtol=1e-14)


def numbers_after(label: str, message: str) -> np.ndarray:
    """The numbers printed on the line of `message` that starts with `label`."""
    line = next(line for line in message.splitlines() if line.strip().startswith(label))
    return np.array([float(token) for token in re.findall(r"[-+]?\d+\.?\d*(?:e[-+]?\d+)?", line)])


def test_check_grads_fails_on_a_wrong_vjp_and_says_where(rng) -> None:
    @primitive
    def sine_with_wrong_vjp(x):
        return np.sin(x)

    # The tempting slip: the derivative of sin written as sin.
    defvjp(sine_with_wrong_vjp, lambda ans, x: lambda g: g * np.sin(x))
    defjvp(sine_with_wrong_vjp, lambda g, ans, x: g * np.cos(x))
    x = rng.uniform(0.3, 1.2, size=3)

    check_grads(sine_with_wrong_vjp, modes=("fwd",), order=1)(x)  # the JVP is right
    with pytest.raises(AssertionError) as error:
        check_grads(sine_with_wrong_vjp, modes=("rev",), order=1)(x)
    message = str(error.value)
    assert "argument 0" in message
    assert "'rev'" in message
    assert "order 1" in message
    expected, computed = numbers_after("expected", message), numbers_after("computed", message)
    assert expected.size and computed.size, message
    assert not np.allclose(expected, computed, rtol=1e-3), "the two values shown must differ"


def test_check_grads_names_the_second_argument_and_forward_mode(rng) -> None:
    @primitive
    def scaled(x, factor):
        return x * factor

    defvjp(scaled, lambda ans, x, f: lambda g: g * f, lambda ans, x, f: lambda g: anp.sum(g * x))
    defjvp(scaled, lambda g, ans, x, f: g * f, lambda g, ans, x, f: 2.0 * g * x)  # wrong factor 2
    x, factor = rng.standard_normal(3), 1.5
    with pytest.raises(AssertionError) as error:
        check_grads(scaled, modes=("fwd", "rev"), order=1)(x, factor)
    message = str(error.value)
    assert "argument 1" in message
    assert "'fwd'" in message


def test_check_grads_catches_a_rule_that_is_only_wrong_at_second_order(rng) -> None:
    @primitive
    def frozen_square(x):
        return x**2

    # First derivative right, but computed on the raw value: it is a constant to the tracer,
    # so the second derivative comes out as zero instead of 2.
    defvjp(frozen_square, lambda ans, x: lambda g: g * 2.0 * getval(x))
    defjvp(frozen_square, lambda g, ans, x: g * 2.0 * getval(x))
    x = rng.uniform(0.5, 1.5, size=3)
    check_grads(frozen_square, modes=("rev",), order=1)(x)
    with pytest.raises(AssertionError) as error, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_grads(frozen_square, modes=("rev",), order=2)(x)
    assert "order 2" in str(error.value)


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


def test_check_grads_accepts_a_container(rng) -> None:
    params = {"w": rng.standard_normal((2, 3)), "b": rng.standard_normal(3)}
    check_grads(lambda p: anp.sum(anp.tanh(p["w"] + p["b"]) ** 2), modes=("rev",), order=1)(params)


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


def test_dot_and_matmul_accept_a_plain_list_as_the_other_operand(rng) -> None:
    """The rules read the other operand's ndim; a list has none of its own, so NumPy's view
    of it is used (this raised inside `metadata` before)."""
    a = rng.standard_normal((3, 2))
    weights = [0.5, -2.0]
    rows = [[1.0, 2.0, 3.0]]
    for product in (anp.dot, anp.matmul):
        gradient = grad(lambda a, product=product: anp.sum(product(a, weights) ** 2))(a)
        assert gradient.shape == a.shape
        np.testing.assert_allclose(gradient, 2 * np.outer(a @ weights, weights), rtol=1e-12)
        gradient = grad(lambda a, product=product: anp.sum(product(rows, a) ** 2))(a)
        assert gradient.shape == a.shape
        np.testing.assert_allclose(gradient, 2 * np.outer(rows[0], np.array(rows) @ a), rtol=1e-12)


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


def test_split_has_tangents_in_forward_mode(rng) -> None:
    x, v = rng.standard_normal(6), rng.standard_normal(6)
    pieces, tangents = make_jvp(lambda x: anp.split(x * 1.0, 3))(x)(v)
    assert [t.shape for t in tangents] == [(2,), (2,), (2,)]
    np.testing.assert_allclose(np.concatenate(tangents), v, rtol=1e-15)
    np.testing.assert_allclose(np.concatenate(pieces), x, rtol=1e-15)


def test_check_grads_goes_to_higher_orders_with_respect_to_nested_containers(rng) -> None:
    """The derivative with respect to a container is a container, which the operators now
    trace as one output: so check_grads recurses for containers as for arrays."""
    from ad_core.test_util import GradientCheckError

    params = [rng.standard_normal(3), (rng.standard_normal(2), {"w": rng.standard_normal((2, 2))})]

    def model(p):
        a, (b, d) = p
        return anp.sum(anp.tanh(a) ** 2) + anp.sum(b * anp.dot(d["w"], b)) + anp.sum(a[:2] * b)

    check_grads(model, modes=("fwd", "rev"), order=3)(params)

    @primitive
    def square(x):
        return x**2

    # The rule reads the raw value, so its own derivative is lost: only order 2 can tell.
    defvjp(square, lambda ans, x: lambda g: g * 2.0 * getval(x))
    defjvp(square, lambda g, ans, x: g * 2.0 * getval(x))
    check_grads(lambda p: anp.sum(square(p[0])), order=1)(params)
    with pytest.raises(GradientCheckError, match="order 2"):
        check_grads(lambda p: anp.sum(square(p[0])), order=2)(params)


def test_grad_accepts_an_output_with_one_entry_and_a_list_argnum(rng) -> None:
    """As in autograd: an output of shape (1,) or (1, 1) counts as a scalar, and `argnum` may
    be a list as well as a tuple."""
    x = rng.standard_normal(3)
    gradient = grad(lambda x: anp.sum(x**2, keepdims=True))(x)
    assert gradient.shape == x.shape
    np.testing.assert_allclose(gradient, 2 * x, rtol=1e-15)
    gradient = grad(lambda x: anp.reshape(anp.dot(x, x), (1, 1)))(x)
    np.testing.assert_allclose(gradient, 2 * x, rtol=1e-15)
    with pytest.raises(TypeError, match=r"shape \(2,\)"):
        grad(lambda x: x[:2])(x)
    gradients = grad(lambda a, b: anp.sum(a * b**2), argnum=[0, 1])(x, 2 * x)
    assert type(gradients) is tuple and len(gradients) == 2
    np.testing.assert_allclose(gradients[0], 4 * x**2, rtol=1e-14)
    np.testing.assert_allclose(gradients[1], 4 * x**2, rtol=1e-14)


def test_a_differentiated_function_is_named_for_what_it_computes() -> None:
    import inspect

    def loss(weights, inputs):
        """The loss."""
        return anp.sum(weights * inputs)

    for operator in (grad, value_and_grad, jacobian, make_vjp, make_jvp, elementwise_grad):
        differentiated = operator(loss, 1)
        name = operator.__name__
        assert differentiated.__name__ == f"{name}_of_loss_wrt_argnum_1"  # as in HIPS/autograd
        assert differentiated.__doc__.startswith(f"{name} of function loss with respect to argument number 1")
        assert list(inspect.signature(differentiated).parameters) == ["weights", "inputs"]
