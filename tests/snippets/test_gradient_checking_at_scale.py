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


def _openblas_with_kernel_choice() -> bool:
    """NumPy's BLAS is an OpenBLAS built for several CPUs (DYNAMIC_ARCH), on x86-64."""
    import platform

    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    return platform.machine() == "x86_64" and "DYNAMIC_ARCH" in str(blas.get("openblas configuration", ""))


_BEST_ERRORS = """
import contextlib, io, json
import numpy as np
from bookkit import load_snippet_module
with contextlib.redirect_stdout(io.StringIO()):
    page = load_snippet_module("snippets/gradient_checking_at_scale/step_size_by_dtype.py")
print(json.dumps([page.best[np.float32], page.best[np.float64]]))
"""


def test_the_page_holds_under_other_openblas_kernels_and_its_float32_error_moves() -> None:
    """The step-size block runs, its asserts included, under OpenBLAS's generic x86-64 kernel
    (Prescott), its AVX2 kernel (Haswell) and the one it picks for this CPU; the float32 best error
    differs between the first two. That is the page's reason for fixed rtols kept at a margin over
    the measured error rather than a rounded multiple of it."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    if not _openblas_with_kernel_choice():
        pytest.skip("NumPy's BLAS is not an x86-64 OpenBLAS with a choice of kernels")
    if " avx2" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("this CPU has no AVX2, so OpenBLAS's Haswell kernel cannot run")
    root = Path(__file__).resolve().parents[2]
    best = {}
    for kernel in ("Prescott", "Haswell", None):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
        if kernel:
            env["OPENBLAS_CORETYPE"] = kernel
        env["PYTHONPATH"] = str(root)
        run = subprocess.run([sys.executable, "-c", _BEST_ERRORS], cwd=root, env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, (kernel, run.stderr[-2000:])
        best[kernel] = json.loads(run.stdout.splitlines()[-1])
    assert best["Prescott"][0] != best["Haswell"][0], best
