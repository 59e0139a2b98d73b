"""Bad input: each mistake raises the right error type with a message that names the problem.

The assertions look for the key words of the message (what went wrong and what to do), not for
the exact sentence, so that rewording a message does not break the suite.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import elementwise_grad, grad, jacobian, make_jvp, value_and_grad
from ad_core.extend import defvjp, primitive


def message_of(error: pytest.ExceptionInfo) -> str:
    return str(error.value).lower()


def test_grad_of_non_scalar_output_points_to_jacobian_and_elementwise_grad() -> None:
    with pytest.raises(TypeError) as error:
        grad(lambda x: x * 2.0)(np.ones(3))
    message = message_of(error)
    assert "scalar" in message
    assert "jacobian" in message
    assert "elementwise_grad" in message
    assert "(3,)" in message, "the message should give the output's shape"


@pytest.mark.parametrize(
    "integer_input",
    [3, np.arange(3), np.int32(2)],
    ids=["python-int", "int-array", "numpy-int32"],
)
def test_differentiating_with_respect_to_an_integer_suggests_float(integer_input) -> None:
    with pytest.raises(TypeError) as error:
        grad(lambda x: anp.sum(x * 2.0))(integer_input)
    message = message_of(error)
    assert "int" in message, "the message should name the integer dtype"
    assert "float" in message, "the message should suggest passing floats"


def test_item_assignment_into_a_traced_array_is_refused() -> None:
    def overwrite_first(x):
        x[0] = 0.0
        return anp.sum(x)

    with pytest.raises(TypeError) as error:
        grad(overwrite_first)(np.ones(3))
    assert "item assignment" in message_of(error)


def messages_in_chain(error: BaseException) -> str:
    """The message of an exception and of every exception it was raised from, lower case."""
    messages = []
    current: BaseException | None = error
    while current is not None:
        messages.append(str(current))
        current = current.__cause__ or current.__context__
    return "\n".join(messages).lower()


@pytest.mark.parametrize(
    "buffer_shape,value",
    [((3,), 1.5), ((2, 3), np.ones(3))],
    ids=["scalar-into-vector", "row-into-matrix"],
)
def test_assigning_a_traced_value_into_a_plain_ndarray_is_refused(buffer_shape, value) -> None:
    def copy_into_buffer(x):
        buffer = np.zeros(buffer_shape)
        buffer[0] = x
        return anp.sum(buffer)

    # For a scalar NumPy re-raises the engine's TypeError as its own ValueError ("setting an
    # array element with a sequence"); the engine's explanation is then the direct cause.
    with pytest.raises((TypeError, ValueError)) as error:
        grad(copy_into_buffer)(value)
    messages = messages_in_chain(error.value)
    assert "a[i] = x" in messages, "the engine should name the pattern that went wrong"
    assert "gradient" in messages


def test_in_place_add_of_a_traced_value_into_an_ndarray_is_refused() -> None:
    def accumulate_in_place(x):
        total = np.zeros(3)
        total += x
        return anp.sum(total)

    with pytest.raises(TypeError) as error:
        grad(accumulate_in_place)(1.5)
    message = message_of(error)
    assert "+=" in message
    assert "y = y + x" in message, "the message should show the functional rewrite"


def test_primitive_without_a_vjp_rule_names_itself_and_the_argument() -> None:
    @primitive
    def mystery_scale(x, factor):
        return x * factor

    with pytest.raises(NotImplementedError) as error:
        grad(lambda x: anp.sum(mystery_scale(x, 2.0)))(np.ones(2))
    message = message_of(error)
    assert "mystery_scale" in message
    assert "argument 0" in message
    assert "vjp" in message


def test_primitive_without_a_jvp_rule_names_itself_and_the_argument() -> None:
    @primitive
    def unexplained_shift(offset, x):
        return x + offset

    with pytest.raises(NotImplementedError) as error:
        make_jvp(lambda x: unexplained_shift(1.0, x))(np.ones(2))(np.ones(2))
    message = message_of(error)
    assert "unexplained_shift" in message
    assert "argument 1" in message
    assert "jvp" in message


@pytest.mark.parametrize("operator", [grad, jacobian, elementwise_grad], ids=lambda op: op.__name__)
def test_argnum_out_of_range_is_reported(operator) -> None:
    with pytest.raises((ValueError, IndexError)) as error:
        operator(lambda x, y: anp.sum(x * y), argnum=2)(1.0, 2.0)
    message = message_of(error)
    assert "argnum" in message
    assert "2" in message
    assert "out of range" in message


def test_output_independent_of_input_warns_and_returns_zeros_of_the_input_shape() -> None:
    x = np.ones((2, 3))
    with pytest.warns(UserWarning, match="(?i)depend"):
        gradient = grad(lambda v: anp.sum(np.ones(4)))(x)
    assert np.shape(gradient) == x.shape
    np.testing.assert_array_equal(gradient, np.zeros_like(x))


@pytest.mark.parametrize("operator", [grad, value_and_grad], ids=["grad", "value_and_grad"])
def test_an_integer_constant_output_warns_and_has_a_zero_gradient(operator) -> None:
    x = np.ones(3)
    with pytest.warns(UserWarning, match="(?i)depend"):
        result = operator(lambda v: 1)(x)
    gradient = result[1] if operator is value_and_grad else result
    assert np.shape(gradient) == x.shape
    np.testing.assert_array_equal(gradient, np.zeros_like(x))


def test_a_boolean_output_is_refused_by_name() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the output does not depend on x either
        with pytest.raises(TypeError, match="returned a boolean"):
            grad(lambda x: anp.allclose(x, x * 3.0 / 3.0))(np.array([1.0, 2.0]))


def test_rule_returning_the_wrong_shape_is_caught_and_named() -> None:
    @primitive
    def forgets_to_unbroadcast(x, y):
        return x + y

    # The tempting wrong rule: pass the broadcast cotangent through unchanged.
    defvjp(forgets_to_unbroadcast, lambda ans, x, y: lambda g: g, lambda ans, x, y: lambda g: g)
    bias = np.ones(3)
    with pytest.raises(ValueError) as error:
        grad(lambda b: anp.sum(forgets_to_unbroadcast(np.ones((2, 3)), b)))(bias)
    message = message_of(error)
    assert "forgets_to_unbroadcast" in message
    assert "(2, 3)" in message, "the message should give the wrong shape"
    assert "(3,)" in message, "the message should give the expected shape"


def test_a_list_seed_counts_by_its_numpy_shape_and_a_ragged_one_is_refused() -> None:
    from ad_core import make_vjp

    vjp, _ = make_vjp(lambda x: anp.sin(x) * 2.0)(np.arange(2.0))
    assert np.array_equal(vjp([1.0, -1.0]), vjp(np.array([1.0, -1.0])))  # as in HIPS/autograd
    with pytest.raises(ValueError) as error:
        vjp([1.0, -1.0, 3.0])
    assert "shape (3,)" in message_of(error) and "has shape (2,)" in message_of(error)
    with pytest.raises(ValueError) as error:
        vjp([[1.0], [1.0, 2.0]])
    assert "ragged list" in message_of(error) and "(2,)" in message_of(error)


def test_a_tuple_output_takes_a_tuple_seed() -> None:
    from ad_core import make_vjp

    vjp, value = make_vjp(lambda x: (anp.sin(x), 3.0 * x))(np.arange(2.0))
    assert isinstance(value, tuple) and len(value) == 2
    got = vjp((np.ones(2), np.ones(2)))
    assert got.shape == (2,)
    assert np.allclose(got, np.cos(np.arange(2.0)) + 3.0)


def test_without_the_seed_check_a_wrong_seed_is_broadcast_summed_or_blamed_on_a_rule(monkeypatch) -> None:
    """What the page and `_checked_seed`'s docstring say happens when the check is switched off."""
    import ad_core.core as core
    from ad_core import make_vjp

    monkeypatch.setattr(core, "_checked_seed", lambda g, shape: np.asarray(g) if isinstance(g, list) else g)
    x = np.arange(3.0)
    vjp_sin, _ = make_vjp(anp.sin)(x)
    broadcast = vjp_sin(1.0)  # a scalar seed for a (3,) output: sin's rule broadcasts it
    assert broadcast.shape == (3,) and np.array_equal(broadcast, np.cos(x))
    vjp_add, _ = make_vjp(lambda v: anp.add(v, 1.0))(x)
    summed = vjp_add(np.ones((2, 3)))  # a (2, 3) seed: add's unbroadcast sums the extra axis
    assert summed.shape == (3,) and np.array_equal(summed, np.full(3, 2.0))
    with pytest.raises(ValueError) as error:
        vjp_sin(np.ones((2, 3)))  # sin's rule returns (2, 3): backward_pass names the rule
    assert "vjp rule of sin" in message_of(error) and "cotangent g" not in message_of(error)


@pytest.mark.parametrize(
    "seed_shape,output_shape,constant",
    [((2, 3), (3,), False), ((1,), (), False), ((), (3,), False), ((2,), (3,), True)],
    ids=["extra-leading-axis", "one-entry-for-a-scalar", "scalar-for-a-vector", "constant-output"],
)
def test_a_seed_of_the_wrong_shape_is_refused_naming_both_shapes(seed_shape, output_shape, constant) -> None:
    """Without the check, a (2, 3) seed for a (3,) output came back as a (3,) gradient:
    `multiply`'s unbroadcast summed the extra axis, a wrong result without an error."""
    from ad_core import make_vjp

    def f(x):
        out = np.ones(output_shape) if constant else anp.sin(x) * 2.0
        return anp.sum(out) if output_shape == () else out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the constant output does not depend on x
        vjp, value = make_vjp(f)(np.ones(3))
    assert np.shape(value) == output_shape
    vjp(np.ones(output_shape))  # the right shape passes
    with pytest.raises(ValueError) as error:
        vjp(np.ones(seed_shape))
    message = message_of(error)
    assert "make_vjp" in message and "cotangent g" in message
    assert f"shape {seed_shape}" in message and f"has shape {output_shape}" in message


@pytest.mark.parametrize(
    "function,point,expect",
    [
        (anp.sqrt, 0.0, np.isposinf),
        (anp.log, 0.0, np.isposinf),
        (anp.sqrt, -1.0, np.isnan),
        (lambda x: anp.sqrt(x) * 0.0, 0.0, np.isnan),
    ],
    ids=["sqrt-at-zero-is-inf", "log-at-zero-is-inf", "sqrt-of-negative-is-nan", "zero-times-inf-is-nan"],
)
def test_nan_and_inf_in_a_gradient_are_returned_not_hidden(function, point, expect) -> None:
    with warnings.catch_warnings():
        # NumPy warns about the division by zero; the value is what this test is about.
        warnings.simplefilter("ignore", RuntimeWarning)
        gradient = grad(function)(np.float64(point))
    assert expect(gradient), f"expected the non-finite value to come through, got {gradient!r}"


def test_nan_in_one_entry_does_not_spread_to_the_others() -> None:
    x = np.array([4.0, 0.0, 9.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gradient = grad(lambda v: anp.sum(anp.sqrt(v)))(x)
    assert np.isposinf(gradient[1])
    np.testing.assert_allclose(gradient[[0, 2]], 0.5 / np.sqrt(x[[0, 2]]), rtol=1e-14)
