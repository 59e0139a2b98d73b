"""The general rule, read off the engine: which sums `unbroadcast` performs for each shape."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from ad_core.recorder import record
from bookkit import Rendered, assert_shape_then_close, checked, given, md_table, text

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


def expected_stages(shape: tuple[int, ...]) -> list[tuple[str, int, np.ndarray]]:
    """The sums the rule calls for, each with the upstream gradient summed by NumPy so far."""
    leading = len(output_shape) - len(shape)
    stages, summed = [], upstream
    for _ in range(leading):  # the first axis is always the next new one
        summed = summed.sum(axis=0)
        stages.append(("sum_leading", 0, summed))
    for axis, size in enumerate(shape):
        if size == 1 and summed.shape[axis] != 1:
            summed = summed.sum(axis=axis, keepdims=True)
            stages.append(("sum_keepdims", axis, summed))
    return stages


def checked_shape(actual: tuple[int, ...], expected: tuple[int, ...]):
    # As lists: CPython has one empty tuple, which `checked` would take for a self-comparison.
    return checked(list(actual), against=list(expected), shown_as=lambda v: f"`{tuple(v)}`")


rows = []
leading_axes = set()  # every axis a `sum_leading` stage named, over all shapes
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
    expected = expected_stages(shape)
    assert [event.detail["stage"] for event in stages] == [stage for stage, _, _ in expected]
    assert_shape_then_close(engine_gradient, sum_to_shape(upstream, shape), rtol=1e-12, atol=1e-12)
    leading_axes |= {event.detail["axis"] for event in stages if event.detail["stage"] == "sum_leading"}
    described = []
    for event, (stage, axis, summed) in zip(stages, expected, strict=True):
        checked(event.value, against=summed, rtol=1e-12, atol=1e-12)
        described.append(
            text(
                "`{stage}` axis {axis} → {shape}",
                stage=stage,
                axis=checked(event.detail["axis"], against=axis),
                shape=checked_shape(event.shape, summed.shape),
            )
        )
    rows.append(
        [
            given(shape),
            Rendered("<br>").join(described) if described else "nothing to sum",
            checked_shape(engine_gradient.shape, shape),
        ]
    )

print(
    md_table(
        [
            text("parameter shape (output {shape})", shape=given(output_shape)),
            "sums the engine's `unbroadcast` performed, in order",
            "gradient shape",
        ],
        rows,
    )
)
print()
print(
    text(
        "For all {count} shapes the engine's gradient equals `sum_to_shape` applied "
        "to the same upstream gradient. Leading sums always name axis {axis}: after each sum the next "
        "extra axis has moved to the front.",
        count=given(len(parameter_shapes)),
        axis=checked(sorted(leading_axes), against=[0], shown_as=lambda v: str(v[0])),
    )
)
