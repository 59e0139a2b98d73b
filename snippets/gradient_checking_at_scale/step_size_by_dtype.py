"""The central-difference error against the step h on the network's loss, in float32 and float64."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, svg_figure, text

net = load_snippet_module(Path(__file__).with_name("_network_loss.py"))
example, by_hand = net.example, net.worked.by_hand

STEPS = 10.0 ** np.arange(-0.5, -9.01, -0.5)
DIRECTIONS = 8
DTYPES = (np.float32, np.float64)
loss0 = net.loss(example.params)


def directional_gradient(direction, t: float) -> float:
    """<grad L(x + t d), d> in float64, from the hand-written backward pass (which the two
    chapters before check against the engine)."""
    params = {n: example.params[n] + t * direction[n] for n in net.PARAM_NAMES}
    cache = net.model.forward(params, example.Xb, example.Yb)
    grads = by_hand.backward_by_hand(params, cache, example.Xb, example.Yb)
    return net.directional_exact(direction, {n: np.reshape(grads[n], params[n].shape) for n in params})


# --8<-- [start:sweep]
errors = {dtype: np.empty((DIRECTIONS, STEPS.size)) for dtype in DTYPES}
third = np.empty(DIRECTIONS)  # |L'''| along each direction
for k in range(DIRECTIONS):
    d = net.random_unit_direction(seed=k)
    exact = net.directional_exact(d, example.engine)
    for dtype in DTYPES:
        for j, h in enumerate(STEPS):
            estimate = net.directional_difference(d, h, dtype)
            errors[dtype][k, j] = abs(estimate - exact) / abs(exact)
    t = 1e-2  # L''' as a second difference of the exact first derivative
    third[k] = abs(directional_gradient(d, t) - 2 * exact + directional_gradient(d, -t)) / t**2
median_error = {dtype: np.median(errors[dtype], axis=0) for dtype in DTYPES}
# --8<-- [end:sweep]

# The prediction: rounding error ~ eps |L| / h, truncation ~ h^2 |L'''| / 6, smallest where
# they balance, at h* = (3 eps |L| / |L'''|)^(1/3).
rows, best_steps = [], {}
for dtype in DTYPES:
    eps = float(np.finfo(dtype).eps)
    predicted = (3 * eps * abs(loss0) / np.median(third)) ** (1 / 3)
    j = int(np.argmin(median_error[dtype]))
    best_steps[dtype] = STEPS[j]
    # the measured best step lies within a decade of the prediction
    assert abs(np.log10(STEPS[j] / predicted)) <= 1.0, (dtype, STEPS[j], predicted)
    # the rule of thumb eps^(1/3) is off by the factor (3 |L| / |L'''|)^(1/3), the same in both types
    scale = (3 * abs(loss0) / np.median(third)) ** (1 / 3)
    rows.append(
        [
            given(np.dtype(dtype).name, shown_as=lambda v: f"`{v}`"),
            given(eps, shown_as=lambda v: f"{v:.1e}"),
            checked(eps ** (1 / 3), against=float(np.cbrt(eps)), rtol=1e-12, shown_as=lambda v: f"{v:.1e}"),
            checked(predicted, against=scale * eps ** (1 / 3), rtol=1e-12, shown_as=lambda v: f"{v:.1e}"),
            checked(
                float(STEPS[j]),
                against=float(STEPS[np.argmin(np.median(errors[dtype], axis=0))]),
                shown_as=lambda v: f"{v:.0e}",
            ),
            checked(
                float(median_error[dtype][j]),
                against=float(np.min(median_error[dtype])),
                shown_as=lambda v: f"{v:.0e}",
            ),
        ]
    )
print(
    md_table(
        [
            "dtype",
            "$\\epsilon$",
            "$\\epsilon^{1/3}$",
            "predicted best $h$",
            "measured best $h$",
            "median relative error there",
        ],
        rows,
        align=["left", "right", "right", "right", "right", "right"],
    )
)
print()

# Below h*, rounding dominates: halving the decade must raise the float64 error.
j64 = int(np.argmin(median_error[np.float64]))
assert median_error[np.float64][-1] > 100 * median_error[np.float64][j64]
ratio = median_error[np.float32][int(np.argmin(median_error[np.float32]))] / median_error[np.float64][j64]


def about(v: float) -> str:
    """``v`` to two significant digits, as $a \\times 10^{b}$ (rounded, not floored)."""
    mantissa, exponent = f"{v:.1e}".split("e")
    return f"${mantissa} \\times 10^{{{int(exponent)}}}$"


best = {dtype: float(np.min(median_error[dtype])) for dtype in DTYPES}
# The rtols are fixed, not derived from this run: the float32 best error moves by a factor of
# about 1.7 between OpenBLAS kernels (test_gradient_checking_at_scale runs this file under two),
# so the check is that each rtol keeps a margin of 5 to 50 times its type's best error.
margin = {dtype: net.RTOL[dtype] / best[dtype] for dtype in DTYPES}
assert all(5 <= margin[dtype] <= 50 for dtype in DTYPES), margin
print(
    text(
        "The error is the median over {k} random unit directions in the parameter space of all {n} "
        "parameters, relative to the exact directional derivative (from `ad_core`'s gradient). "
        "The rule of thumb $h \\approx \\epsilon^{{1/3}}$ is $h^\\star$ exactly when "
        "$|L'''| = 3|L|$; here the loss is {loss:.2f} and its third derivative along a "
        "unit direction a median of {third:.1e}, "
        "so the best step is larger by $(3|L|/|L'''|)^{{1/3}} \\approx$ {scale:.0f} in both types. "
        "At its best step float32 is about {ratio} times less accurate than float64. A check on "
        "this page uses an rtol of {tol32:.0e} in float32 and {tol64:.0e} in float64, {m32:.0f} and "
        "{m64:.0f} times its type's best error here: a margin for the directions and entries worse "
        "than the median, and for other machines, since these best errors depend on which of "
        "OpenBLAS's kernels NumPy runs on the CPU.",
        k=given(DIRECTIONS),
        n=checked(
            sum(v.size for v in example.params.values()),
            against=sum(np.size(example.engine[name]) for name in net.PARAM_NAMES),
        ),
        loss=checked(loss0, against=float(example.cache["loss"]), rtol=1e-15),
        third=checked(
            float(np.median(third)),
            against=float(np.sort(third)[DIRECTIONS // 2 - 1 : DIRECTIONS // 2 + 1].mean()),
        ),
        scale=checked(
            (3 * abs(loss0) / np.median(third)) ** (1 / 3),
            against=float(rows[1][3].value / rows[1][2].value),
            rtol=1e-9,
        ),
        ratio=checked(
            float(ratio),
            against=float(rows[0][5].value / rows[1][5].value),
            shown_as=about,
        ),
        tol32=given(net.RTOL[np.float32]),
        tol64=given(net.RTOL[np.float64]),
        m32=checked(margin[np.float32], against=net.RTOL[np.float32] / float(rows[0][5].value), rtol=1e-12),
        m64=checked(margin[np.float64], against=net.RTOL[np.float64] / float(rows[1][5].value), rtol=1e-12),
    )
)
print()

# The floor is absolute: the model E(h) = h^2 |L'''| / 6 + eps |L| / h has its minimum
# E(h*) = 3/2 eps |L| / h* = 3/2 3^(-1/3) eps^(2/3) |L|^(2/3) |L'''|^(1/3), set by the size of L.
# The measured absolute error at the best step, recomputed from fresh differences, lies below it
# (the model adds up worst-case roundings) but within a decade.
exact_d = np.array([net.directional_exact(net.random_unit_direction(seed=k), example.engine)
                    for k in range(DIRECTIONS)])
floor, measured = {}, {}
for dtype in DTYPES:
    eps, M = float(np.finfo(dtype).eps), float(np.median(third))
    floor[dtype] = 1.5 * 3 ** (-1 / 3) * eps ** (2 / 3) * abs(loss0) ** (2 / 3) * M ** (1 / 3)
    grid = np.geomspace(1e-8, 1.0, 200001)
    model_min = float(np.min(grid**2 * M / 6 + eps * abs(loss0) / grid))
    assert abs(floor[dtype] / model_min - 1) < 1e-6
    h = best_steps[dtype]
    fresh = [abs(net.directional_difference(net.random_unit_direction(seed=k), h, dtype) - exact_d[k])
             for k in range(DIRECTIONS)]
    measured[dtype] = float(np.median(fresh))
    assert np.isclose(measured[dtype], np.median(errors[dtype][:, list(STEPS).index(h)] * np.abs(exact_d)),
                      rtol=1e-12)
    assert 0.1 * floor[dtype] <= measured[dtype] <= floor[dtype], (dtype, measured[dtype], floor[dtype])
print(
    text(
        "The floor is an absolute error. At $h^\\star$ the model's error is "
        "$E(h^\\star) = \\tfrac{{3}}{{2}}\\,\\epsilon|L|/h^\\star = \\tfrac{{3}}{{2}}\\,3^{{-1/3}}\\,"
        "\\epsilon^{{2/3}}|L|^{{2/3}}|L'''|^{{1/3}}$: {f32:.0e} in float32 and {f64:.0e} in float64 "
        "here. It grows with the size of the loss, not of the derivative. The measured median "
        "absolute error at the best step, {m32:.0e} and {m64:.0e}, lies below it and within a "
        "decade. The table's relative errors divide it by $|\\langle \\nabla L, d\\rangle|$, a median "
        "of {dd:.1e} here: where the derivative is small next to the loss, the same floor is a large "
        "relative error.",
        f32=checked(floor[np.float32], against=1.5 * float(np.finfo(np.float32).eps) * abs(loss0)
                    / float(rows[0][3].value), rtol=1e-9),
        f64=checked(floor[np.float64], against=1.5 * float(np.finfo(np.float64).eps) * abs(loss0)
                    / float(rows[1][3].value), rtol=1e-9),
        m32=checked(measured[np.float32], against=floor[np.float32], rtol=0.9),
        m64=checked(measured[np.float64], against=floor[np.float64], rtol=0.9),
        dd=checked(float(np.median(np.abs(exact_d))),
                   against=float(np.sort(np.abs(exact_d))[DIRECTIONS // 2 - 1 : DIRECTIONS // 2 + 1].mean())),
    )
)
print()

fig, ax = plt.subplots(figsize=(7, 3.8))
for dtype, color in zip(DTYPES, ("#e65100", "#3949ab"), strict=True):
    ax.loglog(STEPS, median_error[dtype], "o-", color=color, markersize=3, label=np.dtype(dtype).name)
    ax.axvline(np.finfo(dtype).eps ** (1 / 3), color=color, linestyle=":", linewidth=1)
ax.invert_xaxis()
ax.set_xlabel("step h (dotted: eps^(1/3))")
ax.set_ylabel("median relative error")
ax.legend(fontsize=8)
fig.tight_layout()
print(svg_figure(fig, alt="Central-difference error against the step in float32 and float64"))
plt.close(fig)
