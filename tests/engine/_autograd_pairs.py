"""The conformance harness of the rule batteries (`test_linalg.py`, `test_fft.py`,
`test_scipy_linalg.py`, `test_scipy_signal.py`, `test_scipy_special.py`, `test_scipy_stats.py`):
one function, written against a NumPy-like module `xp`, instantiated with `ad_core.numpy` and
with `autograd.numpy` (a battery over another namespace maps `xp` to it, as
`test_scipy_special.py` maps `ad_core.numpy` to `ad_core.scipy.special`).

A `Case` builds its function from `xp` and its input from a generator. Every case is checked
against finite differences with `check_grads` (both modes, second order); the cases HIPS/autograd
differentiates are also compared with it: value and gradient of a real loss, forward-mode
tangents against autograd's reverse-mode Jacobian, and Hessian-vector products. A battery
whose rules agree with autograd's more closely than `TOLERANCE` passes its own tolerance to
the comparisons (`**tolerance`), so the harness never loosens a battery's check.

The input makers (`normal`, `conditioned`, `spd_of`, `complex_of`) take a shape and return
`rng -> array`, for a `Case`'s `make_input`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import autograd
import autograd.numpy as agnp
import numpy as np

import ad_core
import ad_core.numpy as anp
from ad_core.test_util import check_grads

TOLERANCE = {"rtol": 1e-10, "atol": 1e-10}


class Case(NamedTuple):
    name: str
    build: Callable[[Any], Callable[[Any], Any]]
    make_input: Callable[[np.random.Generator], np.ndarray]
    # False where HIPS/autograd 1.9.1 has no rule, or a different (wrong) one: FD checks only.
    autograd: bool = True
    # False where finite differences would leave the function's domain (dirichlet's x steps
    # off the simplex, which SciPy refuses): compared with autograd only.
    finite_differences: bool = True


def cases_per_argument(
    name: str,
    resolve: Callable[[Any], Callable[..., Any]],
    args: Sequence[Any],
    argnums: Iterable[int],
    autograd_argnums: Iterable[int] = (),
) -> list[Case]:
    """One `Case` per differentiable argument of a function of several arguments: the other
    arguments stay at `args`, and the argument's own value in `args` is the case's input.
    `resolve(xp)` is the function in the namespace `xp`; the arguments in `argnums` are checked
    against finite differences, those in `autograd_argnums` compared with autograd."""
    argnums, autograd_argnums = set(argnums), set(autograd_argnums)
    cases = []
    for argnum in sorted(argnums | autograd_argnums):

        def build(xp: Any, argnum: int = argnum) -> Callable[[Any], Any]:
            fun = resolve(xp)
            return lambda x: fun(*args[:argnum], x, *args[argnum + 1 :])

        cases.append(
            Case(
                f"{name}-wrt-{argnum}",
                build,
                lambda rng, value=args[argnum]: value,
                autograd=argnum in autograd_argnums,
                finite_differences=argnum in argnums,
            )
        )
    return cases


def well_conditioned(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """A square matrix (or stack) near `3 I`: invertible, far from singular."""
    return rng.standard_normal(shape) * 0.5 + 3.0 * np.eye(shape[-1])


def spd(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """A symmetric positive definite matrix (or stack) with well-separated eigenvalues."""
    n = shape[-1]
    q, _ = np.linalg.qr(rng.standard_normal(shape))
    eigenvalues = 1.0 + np.arange(n) * 1.5 + rng.uniform(0.0, 0.5, size=(*shape[:-2], n))
    return np.matmul(q * eigenvalues[..., None, :], np.swapaxes(q, -1, -2))


def complex_normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def normal(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.standard_normal(shape)


def conditioned(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: well_conditioned(rng, shape)


def spd_of(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: spd(rng, shape)


def complex_of(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: complex_normal(rng, shape)


def check_against_finite_differences(case: Case, rng: np.random.Generator) -> None:
    x = case.make_input(rng)
    fun = case.build(anp)
    expected_shape = np.shape(case.build(np)(x))
    assert np.shape(fun(x)) == expected_shape, "the traced function changed the output's shape"
    check_grads(fun, modes=("fwd", "rev"), order=2)(x)


def _real_loss(case: Case, xp: Any, weights: np.ndarray) -> Callable[[Any], Any]:
    fun = case.build(xp)
    return lambda x: xp.sum(xp.real(fun(x) * weights))


def _weights(case: Case, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    output = case.build(np)(x)
    weights = rng.standard_normal(np.shape(output))
    if np.iscomplexobj(output):
        weights = weights + 1j * rng.standard_normal(np.shape(output))
    return weights


def check_gradient_equals_autograd(case: Case, rng: np.random.Generator, **tolerance: float) -> None:
    x = case.make_input(rng)
    weights = _weights(case, x, rng)
    value, gradient = ad_core.value_and_grad(_real_loss(case, anp, weights))(x)
    expected_value, expected_gradient = autograd.value_and_grad(_real_loss(case, agnp, weights))(x)
    assert np.shape(gradient) == np.shape(expected_gradient) == np.shape(x)
    assert np.iscomplexobj(gradient) == np.iscomplexobj(x)
    np.testing.assert_allclose(value, expected_value, **(tolerance or TOLERANCE))
    np.testing.assert_allclose(gradient, expected_gradient, **(tolerance or TOLERANCE))


def check_forward_mode_equals_autograd_jacobian(
    case: Case, rng: np.random.Generator, **tolerance: float
) -> None:
    """Our JVP against autograd's reverse-mode Jacobian times the tangent (autograd 1.9.1 has no
    forward-mode rules for most of these functions). Real inputs only: the Jacobian of a
    complex output is taken as real part plus i times imaginary part."""
    x = case.make_input(rng)
    assert not np.iscomplexobj(x)
    tangent = rng.standard_normal(np.shape(x))
    _, computed = ad_core.make_jvp(case.build(anp))(x)(tangent)
    fun = case.build(agnp)
    output = case.build(np)(x)
    contract = (list(range(-np.ndim(x), 0)), list(range(np.ndim(x))))
    expected = np.tensordot(autograd.jacobian(lambda v: agnp.real(fun(v)))(x), tangent, contract)
    if np.iscomplexobj(output):
        expected = expected + 1j * np.tensordot(
            autograd.jacobian(lambda v: agnp.imag(fun(v)))(x), tangent, contract
        )
    assert np.shape(computed) == np.shape(output)
    np.testing.assert_allclose(computed, expected, **(tolerance or TOLERANCE))


def check_hessian_vector_product_equals_autograd(
    case: Case, rng: np.random.Generator, **tolerance: float
) -> None:
    """Second-order reverse mode (autograd's `hessian_vector_product` needs a real input)."""
    x = case.make_input(rng)
    assert not np.iscomplexobj(x)
    weights = _weights(case, x, rng)
    vector = rng.standard_normal(np.shape(x))
    computed = ad_core.hessian_vector_product(_real_loss(case, anp, weights))(x, vector)
    expected = autograd.hessian_vector_product(_real_loss(case, agnp, weights))(x, vector)
    assert np.shape(computed) == np.shape(x)
    np.testing.assert_allclose(computed, expected, **(tolerance or TOLERANCE))
