"""The hand-written VJPs of convolution and pooling against the engine and central differences."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from bookkit import central_differences, checked, given, load_snippet_module, md_table, text

conv = load_snippet_module(Path(__file__).with_name("_convolution.py"))
TO_ENGINE, TO_DIFFERENCES = 1e-12, 1e-8
seed, length, width, pool, stride = 8, 11, 4, 3, 2
rng = np.random.default_rng(seed)
x, w = rng.normal(size=length), rng.normal(size=width)
dy_conv = rng.normal(size=length - width + 1)
dy_pool = rng.normal(size=len(conv.window_index(length, pool, stride)))


def correlate(a, b):  # the plain-NumPy forward, for central differences
    return np.correlate(a, b, mode="valid")


def windows_of(a):
    return a[conv.window_index(length, pool, stride)]


# (name, hand, engine, loss in plain NumPy whose gradient it is, the point)
cases = [
    (
        "conv, $\\bar x$",
        conv.conv1d_input_grad(dy_conv, w),
        make_vjp(lambda a: conv.conv1d(a, w))(x)[0](dy_conv),
        lambda a: dy_conv @ correlate(a, w),
        x,
    ),
    (
        "conv, $\\bar w$",
        conv.conv1d_kernel_grad(x, dy_conv),
        make_vjp(lambda a: conv.conv1d(x, a))(w)[0](dy_conv),
        lambda a: dy_conv @ correlate(x, a),
        w,
    ),
    (
        "max-pool, $\\bar x$",
        conv.max_pool_input_grad(x, dy_pool, pool, stride),
        make_vjp(lambda a: conv.max_pool(a, pool, stride))(x)[0](dy_pool),
        lambda a: dy_pool @ windows_of(a).max(axis=-1),
        x,
    ),
    (
        "average pool, $\\bar x$",
        conv.avg_pool_input_grad(x, dy_pool, pool, stride),
        make_vjp(lambda a: conv.avg_pool(a, pool, stride))(x)[0](dy_pool),
        lambda a: dy_pool @ windows_of(a).mean(axis=-1),
        x,
    ),
]
rows = []
for name, hand, engine, loss, point in cases:
    numeric = central_differences(loss, point)
    rows.append(
        [
            name,
            checked(hand.shape, against=point.shape),
            checked(
                float(np.max(np.abs(hand - engine))), against=0.0, atol=TO_ENGINE, shown_as="{:.1e}".format
            ),
            checked(
                float(np.max(np.abs(hand - numeric))),
                against=0.0,
                atol=TO_DIFFERENCES,
                shown_as="{:.1e}".format,
            ),
        ]
    )
print(
    md_table(
        [
            "gradient",
            "shape",
            "largest difference to the engine",
            "largest difference to central differences",
        ],
        rows,
    )
)
print()
print(
    text(
        "Random float64 inputs (seed {seed}): $N = {N}$, a kernel of {K}, pooling windows of {P} at "
        "stride {S}, so the pooling windows overlap. Random inputs have no ties, so the maximum is "
        "differentiable and central differences apply.",
        seed=given(seed),
        N=given(length),
        K=given(width),
        P=given(pool),
        S=given(stride),
    )
)
