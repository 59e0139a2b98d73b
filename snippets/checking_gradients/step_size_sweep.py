"""The error of forward and central differences as a function of the step, in float64 and float32."""

import matplotlib.pyplot as plt
import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, md_table, svg_figure, text

point = 1.0
exact = grad(anp.sin)(point)  # the engine's derivative is the reference
assert exact == np.cos(point)
steps = np.logspace(-1, -13, 49)
grid_factor = steps[0] / steps[1]  # each step is this many times the next


# --8<-- [start:differences]
def forward_difference(f, x, h):
    return (f(x + h) - f(x)) / h


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


def relative_error(method, dtype, h):
    x, h = dtype(point), dtype(h)  # every operation below runs in `dtype`
    estimate = method(np.sin, x, h)
    return abs(float(estimate) - exact) / abs(exact)
# --8<-- [end:differences]


curves = {}
for dtype in (np.float64, np.float32):
    for method in (forward_difference, central_difference):
        curves[dtype, method] = np.array([relative_error(method, dtype, h) for h in steps])

figure, axes = plt.subplots(figsize=(7, 4.2))
styles = {forward_difference: "--", central_difference: "-"}
colors = {np.float64: "tab:blue", np.float32: "tab:orange"}
for (dtype, method), errors in curves.items():
    label = f"{method.__name__.replace('_', ' ')}, {dtype.__name__}"  # a legend, not a claim
    shown = np.where(errors > 0, errors, np.nan)  # log scale: an exact hit has no point
    axes.loglog(steps, shown, styles[method], color=colors[dtype], label=label)
axes.set_xlabel("step h")
axes.set_ylabel("relative error of d/dx sin(x) at x = 1")
axes.invert_xaxis()
axes.grid(True, which="major", alpha=0.3)
axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
print(text(
    "Steps: {count} values from {first:.0e} down to {last:.0e}, each {factor:.3g} times the "
    "next.\n",
    count=given(steps.size), first=given(steps[0]), last=given(steps[-1]),
    factor=checked(grid_factor, against=10 ** ((np.log10(steps[0]) - np.log10(steps[-1])) / (steps.size - 1)),
                   rtol=1e-12),
))
print(svg_figure(figure, alt="Error of forward and central differences against the step size"))

# How far the measured best step may land from the prediction: a grid step either way, and
# then the jagged bottom of each V (rounding errors vary from one step to the next, they are
# not the smooth eps |f| / h of the analysis). Measured here: within a factor of 3.
within = 3.0
rows = []
best = {}
for (dtype, method), errors in curves.items():
    index = int(np.nanargmin(errors))
    machine_epsilon = float(np.finfo(dtype).eps)
    # Balancing truncation (h or h^2) against rounding (eps / h) predicts the best step.
    power = 1 / 2 if method is forward_difference else 1 / 3
    predicted = machine_epsilon**power
    best[dtype, method] = (steps[index], errors[index])
    assert predicted / within < steps[index] < predicted * within, (dtype, method)
    at_tiny_step = errors[-1]
    if dtype is np.float32:
        # 1 + 1e-13 rounds to 1 in float32: both differences are 0, a relative error of exactly 1.
        tiny_check = checked(at_tiny_step, against=1.0, shown_as=lambda e: f"{e:.1e}")
    else:
        # Rounding dominates: about eps |f| / h (forward) or eps |f| / (2h) (central), relative
        # to |f'|, and never more than twice that estimate here.
        divisor = 1 if method is forward_difference else 2
        estimate = machine_epsilon * abs(np.sin(point)) / (divisor * steps[-1]) / abs(np.cos(point))
        tiny_check = checked(at_tiny_step, against=estimate, rtol=1.0, shown_as=lambda e: f"{e:.1e}")
    rows.append([
        method.__name__.replace("_", " "), dtype.__name__,
        checked(machine_epsilon, against=2.0 ** -(np.finfo(dtype).nmant), shown_as=lambda e: f"{e:.1e}"),
        checked(predicted, against=np.sqrt(machine_epsilon) if power == 1 / 2 else np.cbrt(machine_epsilon),
                rtol=1e-15, shown_as=lambda e: f"{e:.1e}"),
        checked(steps[index], against=predicted, rtol=within - 1, shown_as=lambda e: f"{e:.1e}"),
        # At the best step truncation and rounding are both about eps^(1/2) (forward) or
        # eps^(2/3) (central); the measured error is below that.
        checked(errors[index], against=0.0, atol=machine_epsilon ** (1 / 2 if power == 1 / 2 else 2 / 3),
                shown_as=lambda e: f"{e:.1e}"),
        tiny_check,
    ])

for dtype in (np.float64, np.float32):
    assert best[dtype, central_difference][1] < best[dtype, forward_difference][1]
    assert best[dtype, central_difference][0] > best[dtype, forward_difference][0]
for method in (forward_difference, central_difference):
    assert best[np.float32, method][1] > 1000 * best[np.float64, method][1]

print(md_table(
    ["method", "dtype", "machine ε", "predicted best $h$", "measured best $h$",
     "smallest relative error", text("error at $h$ = {h:.0e}", h=given(steps[-1]))],
    rows,
))


def slope(errors, first, last):
    """The slope of log error against log h between two grid indices (large steps)."""
    rise = np.log10(errors[first]) - np.log10(errors[last])
    return rise / (np.log10(steps[first]) - np.log10(steps[last]))


# Large steps, 1e-1 to 1e-3 (indices 0 to 8), where truncation dominates in float64.
forward_slope = slope(curves[np.float64, forward_difference], 0, 8)
central_slope = slope(curves[np.float64, central_difference], 0, 8)
print(text(
    "\nThe measured best steps land within a factor of {within:g} of the predictions: one grid "
    "step is a factor of {factor:.3g}, and the rest is the rounding error, which jumps from one "
    "step to the next instead of following the smooth $\\epsilon |f| / h$ of the analysis. "
    "The curves are V-shaped. To the left (large $h$) truncation error dominates and falls "
    "with slope {forward_slope:.2f} (forward) or {central_slope:.2f} (central) in float64. To "
    "the right rounding error dominates: $f(x + h)$ and $f(x)$ agree in more and more leading "
    "digits, and dividing their difference by a tiny $h$ amplifies the digits that are left. "
    "In float32 the best central difference is only good to {float32_best:.0e}, which is why "
    "gradient checks run in float64.",
    within=given(within),
    factor=checked(grid_factor, against=10**0.25, rtol=1e-12),
    forward_slope=checked(forward_slope, against=1.0, atol=0.05),
    central_slope=checked(central_slope, against=2.0, atol=0.05),
    float32_best=checked(best[np.float32, central_difference][1], against=0.0,
                         atol=float(np.finfo(np.float32).eps) ** (2 / 3)),
))
