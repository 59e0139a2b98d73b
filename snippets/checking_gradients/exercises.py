"""Self-test for "Checking gradients": every answer is computed and checked here before it is shown."""

import inspect

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.extend import defvjp, primitive
from ad_core.test_util import ATOL, EPS, RTOL, GradientCheckError, check_grads, numerical_jvp
from bookkit import checked, collapsible, given, text

defaults = inspect.signature(check_grads).parameters  # what check_grads uses when not told

# 1. Why the forward difference collapses in float32 at tiny steps.
one, tiny = np.float32(1.0), np.float32(1e-8)
float32_estimate = (np.sin(one + tiny) - np.sin(one)) / tiny
half_gap = float(np.finfo(np.float32).eps) / 2
print(collapsible(
    text("In float32, the forward difference of $\\sin$ at $x = 1$ with $h$ = {h:.0e} has a "
         "relative error of exactly {error:g}. Why?",
         h=given(float(tiny)),
         error=checked(abs(float(float32_estimate) - np.cos(1.0)) / np.cos(1.0), against=1.0)),
    text(
        "`np.float32(1) + np.float32(1e-8) == np.float32(1)` is {rounds_away}: a step below "
        "{half_gap:.1e}, half the gap between $x = 1$ and the next float32, rounds away, so "
        "$f(x + h) - f(x) = 0$ and the estimate is {estimate:g}.",
        rounds_away=checked(bool(one + tiny == one), against=bool(float(tiny) < half_gap),
                            shown_as=lambda flag: f"`{flag}`"),
        half_gap=checked(half_gap, against=float(np.nextafter(one, np.float32(2)) - one) / 2),
        estimate=checked(float(float32_estimate), against=0.0),
    ),
))

# 2. The central-difference error at check_grads' step.
x, h = 1.0, EPS / 2
estimate = (np.sin(x + h) - np.sin(x - h)) / (2 * h)
error = abs(estimate - grad(anp.sin)(x))
# In exact arithmetic (sin(x + h) - sin(x - h)) / 2h = cos(x) sin(h) / h: the truncation error
# is cos(x) (1 - sin(h) / h); what is left of the error is rounding.
truncation = np.cos(x) * (h**2 / 6 - h**4 / 120)  # the series of cos(x) (1 - sin(h) / h)
rounding = error - truncation
machine_epsilon = float(np.finfo(np.float64).eps)
print(collapsible(
    text("`check_grads` uses a central difference with total width `EPS` = {eps:g}. How far "
         "is it from the true derivative of $\\sin$ at $x = 1$, and which error dominates?",
         eps=checked(EPS, against=defaults["eps"].default)),
    text(
        "The estimate is off by {error:.1e}. The truncation part, $\\frac{{h^2}}{{6}}|f'''|$ "
        "with $h$ = `EPS/2`, is only {truncation:.1e}; the rest, {rounding:.1e}, is rounding, "
        "within the estimate $\\epsilon_{{\\text{{machine}}}} |f| / h$. The tolerances "
        "`rtol` = {rtol:g} and `atol` = {atol:g} leave room for both.",
        error=checked(error, against=abs(estimate - np.cos(x))),
        truncation=checked(truncation, against=h**2 / 6 * abs(np.cos(x)), rtol=1e-12),
        rounding=checked(rounding, against=0.0, atol=machine_epsilon * abs(np.sin(x)) / h),
        rtol=checked(RTOL, against=defaults["rtol"].default),
        atol=checked(ATOL, against=defaults["atol"].default),
    ),
))
assert truncation < error < RTOL


# 3. Random directions instead of every input.
n = 1000
calls = []


def half_squared_norm(x):
    calls.append(1)
    return 0.5 * np.sum(x**2)


point = np.random.default_rng(1003).standard_normal(n)
calls.clear()
numerical_jvp(half_squared_norm, point, np.ones(n))
one_direction = len(calls)
calls.clear()
for basis in np.eye(n):
    numerical_jvp(half_squared_norm, point, basis)
every_coordinate = len(calls)


def wrong_gradient(delta):
    """half_squared_norm with a VJP off by e = delta (1, -1, 0, ..., 0): two wrong entries."""
    error_vector = np.zeros(n)
    error_vector[:2] = delta, -delta

    @primitive
    def f(x):
        return 0.5 * np.sum(x**2)

    defvjp(f, lambda ans, x: lambda g: g * (x + error_vector))
    return f, error_vector


f_big, e_big = wrong_gradient(1e-3)
vjp, _ = make_vjp(f_big)(point)
ones = np.ones(n)  # a direction with a nonzero component along every coordinate
along_ones = float(np.dot(vjp(1.0), ones)), float(numerical_jvp(f_big, point, ones))
passes_along_ones = bool(np.allclose(along_ones[1], along_ones[0], rtol=RTOL, atol=ATOL))


def check_verdict(f):
    try:
        check_grads(f, modes=("rev",), order=1)(point)
    except GradientCheckError:
        return "fails"
    return "passes"


f_small, e_small = wrong_gradient(1e-8)
print(collapsible(
    text("A function has {n} inputs. Why does `check_grads` compare along one random direction "
         "instead of every coordinate, and why does that catch a wrong gradient?", n=given(n)),
    text(
        "Checking every coordinate costs {every} function evaluations for the central "
        "differences; one direction costs {one}. If the engine returns $\\nabla f + e$, the "
        "check compares $\\langle \\nabla f + e, v\\rangle$ with a difference that estimates "
        "$\\langle \\nabla f, v\\rangle$, so it sees only $\\langle e, v\\rangle$ (with a "
        "vector output, $u^\\top E v$ for an error matrix $E$). That is zero only if $v$ is "
        "orthogonal to $e$, which a random Gaussian $v$ is with probability zero, and the check "
        "fails only if it exceeds the tolerance, `atol` plus `rtol` times the size of what it "
        "compares. Nonzero "
        "components along every coordinate are not enough: for "
        "$e = \\delta\\,(1, -1, 0, \\dots, 0)$ the direction of all ones is orthogonal to $e$, "
        "and a comparison along it {along_ones}. With $\\delta$ = {big:g}, `check_grads` "
        "{big_verdict}; with $\\delta$ = {small:g}, below the tolerance, it {small_verdict}.",
        every=checked(every_coordinate, against=2 * n),
        one=checked(one_direction, against=2),
        # <e, ones> is exactly 0: the engine's side and the difference agree to the difference's error.
        along_ones=checked(passes_along_ones, against=bool(np.dot(e_big, ones) == 0.0),
                           shown_as=lambda p: "passes" if p else "fails"),
        big=given(e_big[0]), small=given(e_small[0]),
        big_verdict=checked(check_verdict(f_big), against="fails"),
        small_verdict=checked(check_verdict(f_small), against="passes"),
    ),
))


# 4. Second-order checks only look near the point.
def signed_square(x):
    return anp.sum(x * anp.abs(x))  # first derivative 2|x|, second 2 sign(x): no second at 0


def leaky_square(x):
    return anp.sum(anp.where(x > 0, x, 0.1 * x) ** 2)  # a kink at 0 written with where


def verdict(point, function=signed_square):
    try:
        check_grads(function, modes=("rev",), order=2)(point)
    except GradientCheckError:
        return "fails"
    return "passes"


def listed(values):
    return "`[" + ", ".join(f"{value:g}" for value in values) + "]`"


away, near = np.array([0.5, -1.0]), np.array([0.5, EPS / 10])
print(collapsible(
    "Does `check_grads(order=2)` need the function to be twice differentiable everywhere?",
    text(
        "Only near the point it checks: it compares derivatives at one point with differences "
        "over a width of `EPS`. `sum(x * abs(x))` has no second derivative at $x = 0$, yet its "
        "second-order check at {away} {away_verdict}. At {near}, where the function is smooth "
        "but closer to the kink than `EPS/2`, the difference straddles the kink and the check "
        "{near_verdict}, although the engine's derivatives are right there. A kink written "
        "with `anp.where`, `sum(where(x > 0, x, x / 10) ** 2)`, behaves the same: its check at "
        "{away} {where_verdict}. Check at points many times `EPS` away from any kink.",
        away=given(away, shown_as=listed), near=given(near, shown_as=listed),
        away_verdict=checked(verdict(away), against="passes"),
        near_verdict=checked(verdict(near), against="fails"),
        where_verdict=checked(verdict(away, leaky_square), against="passes"),
    ),
))
