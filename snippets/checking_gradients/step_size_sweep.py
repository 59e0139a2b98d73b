"""The error of forward and central differences as a function of the step, in float64 and float32."""

import matplotlib.pyplot as plt
import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import md_table, svg_figure

point = 1.0
exact = grad(anp.sin)(point)  # the engine's derivative is the reference
assert exact == np.cos(point)
steps = np.logspace(-1, -13, 49)


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
    label = f"{method.__name__.replace('_', ' ')}, {dtype.__name__}"
    shown = np.where(errors > 0, errors, np.nan)  # log scale: an exact hit has no point
    axes.loglog(steps, shown, styles[method], color=colors[dtype], label=label)
axes.set_xlabel("step h")
axes.set_ylabel("relative error of d/dx sin(x) at x = 1")
axes.invert_xaxis()
axes.grid(True, which="major", alpha=0.3)
axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
print(svg_figure(figure, alt="Error of forward and central differences against the step size"))

rows = []
best = {}
for (dtype, method), errors in curves.items():
    index = int(np.nanargmin(errors))
    machine_epsilon = float(np.finfo(dtype).eps)
    # Balancing truncation (h or h^2) against rounding (eps / h) predicts the best step.
    predicted = machine_epsilon ** (1 / 2 if method is forward_difference else 1 / 3)
    best[dtype, method] = (steps[index], errors[index])
    assert predicted / 30 < steps[index] < predicted * 30, (dtype, method)
    rows.append([
        method.__name__.replace("_", " "), dtype.__name__, f"{machine_epsilon:.1e}",
        f"{predicted:.1e}", f"{steps[index]:.1e}", f"{errors[index]:.1e}",
        f"{errors[-1]:.1e}",
    ])

for dtype in (np.float64, np.float32):
    assert best[dtype, central_difference][1] < best[dtype, forward_difference][1]
    assert best[dtype, central_difference][0] > best[dtype, forward_difference][0]
for method in (forward_difference, central_difference):
    assert best[np.float32, method][1] > 1000 * best[np.float64, method][1]

print(md_table(
    ["method", "dtype", "machine ε", "predicted best $h$", "measured best $h$",
     "smallest relative error", f"error at $h$ = {steps[-1]:.0e}"],
    rows,
))
print(
    f"\nThe curves are V-shaped. To the left (large $h$) truncation error dominates and falls "
    f"with slope 1 (forward) or 2 (central). To the right rounding error dominates: "
    f"$f(x + h)$ and $f(x)$ agree in more and more leading digits, and dividing their "
    f"difference by a tiny $h$ amplifies the digits that are left. In float32 the best "
    f"central difference is only good to "
    f"{best[np.float32, central_difference][1]:.0e}, which is why gradient checks run in float64."
)
