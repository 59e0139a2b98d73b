"""HIPS/autograd and ad_core side by side, for the ported examples.

An example is written once against a namespace `lib` holding what the original imports
(`lib.np`, `lib.grad`, `lib.adam`, `lib.norm`, ...). The two engines lay out their modules
alike (`autograd.scipy.stats.norm` is `ad_core.scipy.stats.norm`), so one function builds either
namespace from the package's name, and the runs differ only in where the names come from.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import numpy as np


def engine_library(package: str) -> SimpleNamespace:
    """What the examples import, from `package` ("autograd" or "ad_core")."""

    def module(name: str) -> Any:
        return importlib.import_module(f"{package}.{name}" if name else package)

    engine, extend, optimizers = module(""), module("extend"), module("misc.optimizers")
    special, tracer = module("scipy.special"), module("tracer")
    return SimpleNamespace(
        np=module("numpy"),
        npr=module("numpy.random"),
        grad=engine.grad,
        value_and_grad=engine.value_and_grad,
        elementwise_grad=engine.elementwise_grad,
        hessian_vector_product=engine.hessian_vector_product,
        primitive=extend.primitive,
        defvjp=extend.defvjp,
        check_grads=module("test_util").check_grads,
        flatten=module("misc.flatten").flatten,
        flatten_func=module("misc.flatten").flatten_func,
        adam=optimizers.adam,
        sgd=optimizers.sgd,
        trace=tracer.trace,
        Node=tracer.Node,
        tuple=module("builtins").tuple,
        logsumexp=special.logsumexp,
        gammaln=special.gammaln,
        expit=special.expit,
        mvn=module("scipy.stats.multivariate_normal"),
        norm=module("scipy.stats.norm"),
        t=module("scipy.stats.t"),
        odeint=module("scipy.integrate").odeint,
        convolve=module("scipy.signal").convolve,
    )


AUTOGRAD = engine_library("autograd")
AD_CORE = engine_library("ad_core")
TOLERANCE = {"rtol": 1e-10, "atol": 1e-10}


def assert_trees_close(actual: Any, expected: Any, path: str = "", **tolerance: float) -> None:
    """Same containers and leaf shapes (checked first), then values to 1e-10 unless told."""
    assert type(actual) is type(expected), path
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected), path
        for key in expected:
            assert_trees_close(actual[key], expected[key], f"{path}[{key!r}]", **tolerance)
    elif isinstance(expected, list | tuple):
        assert len(actual) == len(expected), path
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_trees_close(a, e, f"{path}[{index}]", **tolerance)
    else:
        assert np.shape(actual) == np.shape(expected), path
        np.testing.assert_allclose(actual, expected, err_msg=path, **(tolerance or TOLERANCE))
