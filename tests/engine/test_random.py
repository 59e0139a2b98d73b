"""`ad_core.numpy.random`: plain NumPy randomness, constants to the tracer."""

from __future__ import annotations

import numpy as np

import ad_core.numpy as anp
from ad_core import (
    grad,
)


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
