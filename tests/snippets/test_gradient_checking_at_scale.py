"""The chapter "Gradient checking at scale": its helpers and its sampling formula, checked
against other computations (SciPy's hypergeometric distribution, float64 arithmetic)."""

from __future__ import annotations

import contextlib
import io
from math import comb

import numpy as np
import pytest

from bookkit import load_snippet_module

net = load_snippet_module("snippets/gradient_checking_at_scale/_network_loss.py")


def test_loss_runs_every_operation_in_the_type_asked_for() -> None:
    loss32, loss64 = net.loss(net.example.params, np.float32), net.loss(net.example.params, np.float64)
    assert loss64 == pytest.approx(float(net.example.cache["loss"]), rel=1e-15)
    # float32 rounds: close to the float64 loss, but not equal to it
    assert loss32 != loss64 and loss32 == pytest.approx(loss64, rel=1e-5)


def test_directional_difference_converges_to_the_engine_directional_derivative() -> None:
    direction = net.random_unit_direction(seed=3)
    exact = net.directional_exact(direction, net.example.engine)
    errors = [abs(net.directional_difference(direction, h, np.float64) - exact) for h in (1e-1, 1e-2, 1e-3)]
    # truncation regime: error ∝ h², a hundred times smaller per decade (within a factor 2)
    assert 50 < errors[0] / errors[1] < 200 and 50 < errors[1] / errors[2] < 200


def test_chance_of_catching_is_one_minus_scipy_hypergeometric_zero() -> None:
    stats = pytest.importorskip("scipy.stats")
    with contextlib.redirect_stdout(io.StringIO()):
        sampling = load_snippet_module("snippets/gradient_checking_at_scale/sampling_entries.py")
    for N, k, m in [(4137, 30, 587), (270, 30, 37), (1920, 64, 132), (10, 10, 1)]:
        expected = 1 - stats.hypergeom(N, k, m).pmf(0)
        assert sampling.chance_of_catching(N, k, m) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # the page's counts are the smallest that reach 99%
    assert sampling.chance_of_catching(4137, 30, 587) >= 0.99 > sampling.chance_of_catching(4137, 30, 586)
    assert 1 - comb(4137 - 30, 586) / comb(4137, 586) < 0.99
