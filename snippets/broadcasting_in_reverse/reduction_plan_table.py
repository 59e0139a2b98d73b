"""Which axes unbroadcast sums for each target shape, read from the engine's recorded stages."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from bookkit import assert_shape_then_close, fmt_shape, load_snippet_module, md_table
from bookkit.checks import central_differences

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

rng = np.random.default_rng(7)
# (data shape, bias shape): every bias shape NumPy can broadcast against the data.
cases = [
    ((2, 3), ()),
    ((2, 3), (3,)),
    ((2, 3), (1, 3)),
    ((2, 3), (2, 1)),
    ((2, 3), (1, 1)),
    ((2, 3), (2, 3)),
    ((4, 2, 3), (1, 3)),
    ((4, 2, 3), (2, 1)),
]

rows = []
for data_shape, bias_shape in cases:
    data = rng.standard_normal(data_shape)
    bias = rng.standard_normal(bias_shape)
    with record() as recording:
        gradient = grad(lambda b, data=data: anp.sum(data + b))(bias)
    stages = helpers.unbroadcast_events(recording.events)
    leading = [e.detail["axis"] for e in stages if e.detail["stage"] == "sum_leading"]
    keepdims = [e.detail["axis"] for e in stages if e.detail["stage"] == "sum_keepdims"]
    # What the recorder saw must match the rule stated in the text: one leading sum per missing
    # axis, one keepdims sum per size-1 axis of the target.
    assert len(leading) == len(data_shape) - len(bias_shape)
    assert keepdims == [axis for axis, size in enumerate(bias_shape) if size == 1]
    copies = int(np.prod(data_shape)) // int(np.prod(bias_shape, dtype=int))
    assert_shape_then_close(np.asarray(gradient), np.full(bias_shape, float(copies)))
    fd = central_differences(lambda b, data=data: np.sum(data + b), bias)
    assert_shape_then_close(np.asarray(gradient), fd, rtol=1e-8)
    rows.append([
        helpers.shape_cell(bias_shape),
        helpers.shape_cell(data_shape),
        ", ".join(map(str, leading)) or "none",
        ", ".join(map(str, keepdims)) or "none",
        helpers.value_cell(gradient),
        helpers.shape_cell(np.shape(gradient)),
        str(copies),
    ])

print(md_table(
    ["`b.shape`", "output shape", "leading sums (axis)", "keepdims sums (axis)",
     "`dL/db` for `L = sum(data + b)`", "its shape", "uses of each entry"],
    rows,
))
print()
print(
    f"All {len(cases)} gradients have the shape of `b`, and each entry equals the number of "
    "output positions that entry reached, checked against finite differences. The "
    f"`{fmt_shape((1, 3))}` bias on `{fmt_shape((4, 2, 3))}` data needs both stages: one "
    "leading sum, then a keepdims sum."
)
