"""`ad_core.scipy.integrate.odeint`: the value is SciPy's; gradients with respect to `y0`, the
times `t` and the extra `args` (a tuple, nested containers) against finite differences of
`scipy.integrate.odeint` and against HIPS/autograd 1.9.1; Hessians (reverse over reverse); a
parameter tuple shared by two solves; what raises (forward mode, `full_output`).
"""

from __future__ import annotations

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest
import scipy.integrate
from autograd.builtins import tuple as ag_tuple
from autograd.scipy.integrate import odeint as ag_odeint

import ad_core.numpy as anp
from ad_core import grad, hessian, make_jvp, value_and_grad
from ad_core.scipy.integrate import odeint

from ._oracle import assert_same_shape

# The solver is asked for 1e-11. The adjoint pass integrates another ODE with the same
# tolerances, so our gradient and a finite difference of the forward solution each carry a
# relative error of order 1e-9 (the local tolerance times the number of steps; the difference
# quotient divides the solver's error by the step 1e-5 twice over): 1e-6 relative is well
# above that and still far below any error in a rule. Against autograd, which runs the same
# adjoint algorithm through the same LSODA calls, the results agree to rounding: 1e-10.
SOLVER = {"rtol": 1e-11, "atol": 1e-11}
FD_TOLERANCE = {"rtol": 1e-6, "atol": 1e-8}
AUTOGRAD_TOLERANCE = {"rtol": 1e-10, "atol": 1e-12}
Y0 = np.array([1.0, -0.5])
TIMES = np.array([0.0, 0.4, 1.0, 1.5])
MATRIX = np.array([[-0.5, 1.0], [-1.0, -0.3]])
SCALE = np.array([1.0, 0.7])
WEIGHTS = np.random.default_rng(0).standard_normal((4, 2))


def dynamics(xp):
    """A non-linear, time-dependent system with two parameters."""
    def f(y, t, matrix, scale):
        return xp.tanh(xp.dot(matrix, y)) * scale + 0.1 * xp.sin(t) * y

    return f


def loss(y0, t, matrix, scale):
    return anp.sum(WEIGHTS * odeint(dynamics(anp), y0, t, (matrix, scale), **SOLVER))


def autograd_loss(y0, t, matrix, scale):
    return agnp.sum(WEIGHTS * ag_odeint(dynamics(agnp), y0, t, ag_tuple((matrix, scale)), **SOLVER))


def scipy_loss(y0, t, matrix, scale):
    return np.sum(WEIGHTS * scipy.integrate.odeint(dynamics(np), y0, t, args=(matrix, scale), **SOLVER))


def central_differences(fun, args, argnum, step=1e-5):
    """The gradient of a scalar function of plain arrays, entry by entry."""
    base = np.asarray(args[argnum], dtype=float)
    result = np.zeros(base.shape)
    for index in np.ndindex(base.shape):
        moved = [np.array(a, dtype=float) for a in args]
        moved[argnum][index] += step
        forward = fun(*moved)
        moved[argnum][index] -= 2 * step
        result[index] = (forward - fun(*moved)) / (2 * step)
    return result


ARGUMENTS = (Y0, TIMES, MATRIX, SCALE)


def test_odeint_value_is_scipys() -> None:
    ours = odeint(dynamics(anp), Y0, TIMES, (MATRIX, SCALE), **SOLVER)
    expected = scipy.integrate.odeint(dynamics(np), Y0, TIMES, args=(MATRIX, SCALE), **SOLVER)
    assert_same_shape(ours, (4, 2), "odeint")
    np.testing.assert_array_equal(ours, expected)


@pytest.mark.parametrize("argnum, name", [(0, "y0"), (1, "t"), (2, "args[0]"), (3, "args[1]")])
def test_odeint_gradient_matches_finite_differences_of_scipy(argnum, name) -> None:
    computed = grad(loss, argnum)(*ARGUMENTS)
    assert_same_shape(computed, np.shape(ARGUMENTS[argnum]), f"gradient wrt {name}")
    expected = central_differences(scipy_loss, ARGUMENTS, argnum)
    np.testing.assert_allclose(computed, expected, **FD_TOLERANCE, err_msg=name)


@pytest.mark.parametrize("argnum", [0, 1, 2, 3])
def test_odeint_gradient_equals_autograd(argnum) -> None:
    computed = grad(loss, argnum)(*ARGUMENTS)
    expected = autograd.grad(autograd_loss, argnum)(*ARGUMENTS)
    assert_same_shape(computed, np.shape(expected), "gradient")
    np.testing.assert_allclose(computed, expected, **AUTOGRAD_TOLERANCE)


def test_odeint_gradient_with_respect_to_all_arguments_at_once() -> None:
    """One backward pass serves y0, t and both parameters (the adjoint runs once)."""
    value, gradients = value_and_grad(loss, (0, 1, 2, 3))(*ARGUMENTS)
    assert value == scipy_loss(*ARGUMENTS)
    for argnum, gradient in enumerate(gradients):
        assert_same_shape(gradient, np.shape(ARGUMENTS[argnum]), f"gradient {argnum}")
        np.testing.assert_allclose(gradient, grad(loss, argnum)(*ARGUMENTS), rtol=1e-12, atol=1e-14)


def test_odeint_gradient_through_nested_parameters() -> None:
    """`args` holding a dict: the parameters arrive as one traced container."""
    def f(y, t, params):
        return -params["rate"] * y + params["drive"][0] * anp.cos(t)

    params = {"rate": np.array([0.8, 1.3]), "drive": [np.array(0.5)]}
    t = np.linspace(0.0, 2.0, 5)

    def loss_of(p):
        return anp.sum(odeint(f, Y0, t, (p,), **SOLVER) ** 2)

    def scipy_of(rate, drive):
        p = {"rate": rate, "drive": [drive]}
        return np.sum(scipy.integrate.odeint(lambda y, t: -p["rate"] * y + p["drive"][0] * np.cos(t),
                                             Y0, t, **SOLVER) ** 2)

    gradient = grad(loss_of)(params)
    assert_same_shape(gradient["rate"], (2,), "gradient wrt rate")
    assert_same_shape(gradient["drive"][0], (), "gradient wrt drive")
    np.testing.assert_allclose(gradient["rate"], central_differences(scipy_of, (params["rate"], 0.5), 0),
                               **FD_TOLERANCE)
    np.testing.assert_allclose(gradient["drive"][0], central_differences(scipy_of, (params["rate"], 0.5), 1),
                               **FD_TOLERANCE)


def test_odeint_traced_values_inside_a_plain_args_tuple() -> None:
    """A parameter traced inside an ordinary tuple is seen (autograd needs its own tuple type)."""
    def loss_of_rate(rate):
        return anp.sum(odeint(lambda y, t, r: -r * y, Y0, TIMES, (rate,), **SOLVER))

    gradient = grad(loss_of_rate)(0.7)
    expected = central_differences(
        lambda r: np.sum(scipy.integrate.odeint(lambda y, t: -r * y, Y0, TIMES, **SOLVER)), (0.7,), 0)
    assert_same_shape(gradient, (), "gradient")
    np.testing.assert_allclose(gradient, expected, **FD_TOLERANCE)


def test_odeint_forward_mode_raises_naming_odeint() -> None:
    with pytest.raises(NotImplementedError, match="odeint has no forward-mode"):
        make_jvp(lambda y0: odeint(dynamics(anp), y0, TIMES, (MATRIX, SCALE)))(Y0)(np.ones(2))


@pytest.mark.parametrize(("argnum", "name"), [(0, "y0"), (3, "scale")])
def test_odeint_hessian_matches_differences_of_the_gradient_and_autograd(argnum, name) -> None:
    """Reverse over reverse: the adjoint pass is traced, so its derivative is another adjoint
    pass. Finite differences of our own gradient are the oracle (each carries the solver's error
    divided by the step, hence the looser tolerance), and autograd runs the same algorithm."""
    def loss_of(x, loss=loss):
        return loss(*ARGUMENTS[:argnum], x, *ARGUMENTS[argnum + 1:])

    ours = hessian(loss_of)(ARGUMENTS[argnum])
    size = np.size(ARGUMENTS[argnum])
    assert_same_shape(ours, (size, size), f"Hessian in {name}")
    gradient = grad(loss_of)
    by_differences = np.stack([
        central_differences(lambda x, j=j: gradient(x)[j], [ARGUMENTS[argnum]], 0) for j in range(size)
    ])
    np.testing.assert_allclose(ours, by_differences, rtol=1e-5, atol=1e-7)
    theirs = autograd.hessian(lambda x: loss_of(x, autograd_loss))(ARGUMENTS[argnum])
    np.testing.assert_allclose(ours, theirs, **AUTOGRAD_TOLERANCE)


def test_odeint_args_used_twice_get_both_cotangents() -> None:
    """Two solves share one traced parameter tuple: its two dense cotangents must be added
    entry by entry (tuple + tuple would join them end to end, a silently wrong gradient)."""
    def twice(params, xp, solve):
        f = dynamics(xp)
        return (xp.sum(WEIGHTS * solve(f, Y0, TIMES, params, **SOLVER))
                + xp.sum(WEIGHTS * solve(f, 2.0 * Y0, TIMES, params, **SOLVER)))

    def scipy_solve(f, y0, t, params, **kwargs):
        return scipy.integrate.odeint(f, y0, t, args=tuple(params), **kwargs)

    ours = grad(lambda params: twice(params, anp, odeint))((MATRIX, SCALE))
    assert type(ours) is tuple and len(ours) == 2
    assert_same_shape(ours[1], SCALE.shape, "gradient in scale")
    theirs = autograd.grad(lambda params: twice(params, agnp, ag_odeint))((MATRIX, SCALE))
    for mine, reference in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(mine, reference, **AUTOGRAD_TOLERANCE)
    expected = central_differences(lambda s: twice((MATRIX, s), np, scipy_solve), [SCALE], 0)
    np.testing.assert_allclose(ours[1], expected, **FD_TOLERANCE)


def test_odeint_full_output_raises_when_differentiated() -> None:
    def with_info(y0):
        return anp.sum(odeint(dynamics(anp), y0, TIMES, (MATRIX, SCALE), full_output=True)[0])

    with pytest.raises(NotImplementedError, match="odeint with full_output=True"):
        grad(with_info)(Y0)
