"""`ad_core.wrap_util`: `unary_to_nary` turns an operator on one argument into one over a chosen
argument, and names the result as HIPS/autograd does."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import (
    elementwise_grad,
    grad,
    jacobian,
    make_jvp,
    make_vjp,
    value_and_grad,
)
from ad_core.core import make_vjp as core_make_vjp
from ad_core.wrap_util import unary_to_nary

from ._oracle import assert_close, numerical_grad


def test_a_differentiated_function_is_named_for_what_it_computes() -> None:
    def loss(weights, inputs):
        """The loss."""
        return anp.sum(weights * inputs)

    for operator in (grad, value_and_grad, jacobian, make_vjp, make_jvp, elementwise_grad):
        differentiated = operator(loss, 1)
        name = operator.__name__
        assert differentiated.__name__ == f"{name}_of_loss_wrt_argnum_1"  # as in HIPS/autograd
        assert differentiated.__doc__.startswith(f"{name} of function loss with respect to argument number 1")
        assert list(inspect.signature(differentiated).parameters) == ["weights", "inputs"]


@unary_to_nary
def plain_grad(fun, x):
    vjp, _ = core_make_vjp(fun, x)
    return vjp(1.0)


def test_unary_to_nary_differentiates_the_chosen_argument() -> None:
    def fun(x, y):
        return x * y + x**2

    for argnum in (0, 1):
        computed = plain_grad(fun, argnum)(0.7, 1.8)
        expected = numerical_grad(fun, (0.7, 1.8), argnum)
        assert np.shape(computed) == ()
        assert_close(computed, expected, f"grad wrt argument {argnum}")


def test_unary_to_nary_names_the_result_as_autograd_does() -> None:
    def loss(x, y):
        """The loss."""
        return x * y

    wrapped = plain_grad(loss, 1)
    assert wrapped.__name__ == "plain_grad_of_loss_wrt_argnum_1"
    assert "plain_grad of function loss with respect to argument number 1" in wrapped.__doc__


def test_unary_to_nary_rejects_a_bad_argnum_by_name() -> None:
    with pytest.raises(TypeError, match=r"plain_grad: argnum must be an int or a tuple of ints, got 'x'"):
        plain_grad(lambda x: x, "x")
