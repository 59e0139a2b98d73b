"""`ad_core.numpy.array_box.ArrayBox`: methods trace like the functions, `len` and iteration,
comparisons that return plain booleans."""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import (
    grad,
)
from ad_core.extend import (
    Box,
)

from ._oracle import (
    numerical_grad,
)

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
