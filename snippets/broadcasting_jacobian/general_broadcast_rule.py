"""The general rule, read off the engine: which sums `unbroadcast` performs for each shape."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from ad_core.inspect import record
from bookkit import assert_shape_then_close, fmt_shape, md_table

output_shape = (2, 3, 4)
parameter_shapes = [(), (4,), (1, 4), (3, 1), (3, 4), (2, 1, 4), (1, 1, 1), (2, 3, 4)]
rng = np.random.default_rng(1)
upstream = rng.normal(size=output_shape)


# --8<-- [start:rule]
def sum_to_shape(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum the new leading axes away, then sum the size-1 axes in place."""
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    size_one_axes = tuple(axis for axis, size in enumerate(shape) if size == 1)
    return g.sum(axis=size_one_axes, keepdims=True)


# --8<-- [end:rule]


rows = []
for shape in parameter_shapes:
    parameter = rng.normal(size=shape)
    with record() as recording:
        vjp_function, _ = make_vjp(lambda p: anp.zeros(output_shape) + p)(parameter)
        engine_gradient = vjp_function(upstream)
    stages = [
        event
        for event in recording.of_kind("unbroadcast")
        if event.detail.get("stage") in ("sum_leading", "sum_keepdims")
    ]
    assert_shape_then_close(engine_gradient, sum_to_shape(upstream, shape))
    described = [
        f"`{event.detail['stage']}` axis {event.detail['axis']} → `{fmt_shape(event.shape)}`"
        for event in stages
    ]
    leading_sums = sum(event.detail["stage"] == "sum_leading" for event in stages)
    assert leading_sums == len(output_shape) - len(shape)
    rows.append(
        [
            f"`{fmt_shape(shape)}`",
            "<br>".join(described) if described else "nothing to sum",
            f"`{fmt_shape(engine_gradient.shape)}`",
        ]
    )

print(
    md_table(
        [
            f"parameter shape (output `{fmt_shape(output_shape)}`)",
            "sums the engine's `unbroadcast` performed, in order",
            "gradient shape",
        ],
        rows,
    )
)
print()
print(
    f"For all {len(parameter_shapes)} shapes the engine's gradient equals `sum_to_shape` applied "
    "to the same upstream gradient. Leading sums always name axis 0: after each sum the next "
    "extra axis has moved to the front."
)
