"""Self-test for chapter 10: every answer is computed and checked here before it is shown."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.test_util import ATOL, EPS, RTOL, GradientCheckError, check_grads
from bookkit import collapsible

# 1. Why the forward difference collapses in float32 at tiny steps.
one, tiny = np.float32(1.0), np.float32(1e-8)
assert one + tiny == one
float32_estimate = (np.sin(one + tiny) - np.sin(one)) / tiny
assert abs(float(float32_estimate) - np.cos(1.0)) / np.cos(1.0) == 1.0
half_gap = float(np.finfo(np.float32).eps) / 2
print(collapsible(
    "In float32, the forward difference of $\\sin$ at $x = 1$ with $h = 10^{-8}$ has a "
    "relative error of exactly 1. Why?",
    f"`np.float32(1) + np.float32(1e-8) == np.float32(1)` is `{bool(one + tiny == one)}`: "
    f"a step smaller than half the gap between 1 and the next float32 "
    f"({half_gap:.1e}) rounds away, so $f(x + h) - f(x) = 0$ and the estimate is 0.",
))

# 2. The central-difference error at check_grads' step.
x = 1.0
estimate = (np.sin(x + EPS / 2) - np.sin(x - EPS / 2)) / EPS
error = abs(estimate - grad(anp.sin)(x))
truncation = EPS**2 / 24 * abs(np.cos(x))  # h = EPS/2: (h^2 / 6) |f'''|
rounding = np.finfo(np.float64).eps * abs(np.sin(x)) / (EPS / 2)
assert truncation < error < 10 * rounding < RTOL
print(collapsible(
    f"`check_grads` uses a central difference with total width `EPS = {EPS:g}`. How far is it "
    "from the true derivative of $\\sin$ at 1, and which error dominates?",
    f"The estimate is off by {error:.1e}. The truncation term $\\frac{{h^2}}{{6}}|f'''|$ "
    f"with $h$ = `EPS/2` is only {truncation:.1e}; the rest is rounding: "
    f"$\\epsilon_{{\\text{{machine}}}} |f| / h$ is {rounding:.1e}. The tolerance "
    f"`rtol = {RTOL:g}`, `atol = {ATOL:g}` leaves room for both.",
))

# 3. Random directions instead of every input.
n = 1000
print(collapsible(
    f"A function has {n} inputs. Why does `check_grads` compare along one random direction "
    "instead of every coordinate?",
    f"Checking every coordinate costs {2 * n} function evaluations for the central "
    "differences; one random direction costs 2. A random direction has a nonzero component "
    "along every coordinate (with probability one), so a wrong entry anywhere in the "
    "gradient changes $\\langle J^\\top u, v\\rangle$ and shows up.",
))


# 4. Second-order checks only look near the point.
def cubic(x):
    return anp.sum(x**3)


check_grads(cubic, modes=("rev",), order=2)(np.array([0.5, -1.0]))
try:
    check_grads(lambda x: anp.sum(anp.abs(x) ** 3), modes=("rev",), order=2)(
        np.array([0.5, -1.0])
    )
    abs_verdict = "passes"
except GradientCheckError:
    abs_verdict = "fails"
assert abs_verdict == "passes"
print(collapsible(
    "Does `check_grads(order=2)` need the function to be twice differentiable everywhere?",
    "Only near the point it checks: it compares derivatives at one point with differences "
    "over a width of `EPS`. `sum(|x|**3)` at `[0.5, -1.0]` "
    f"{abs_verdict}, even though `|x|` has no derivative at 0. Check at points away from "
    "kinks, or the difference straddles the kink and the check fails for the wrong reason.",
))
