"""Which axes unbroadcast sums for each target shape, read from the engine's recorded stages."""

import itertools
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record
from bookkit import checked, given, load_snippet_module, md_table, text
from bookkit.checks import central_differences

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

rng = np.random.default_rng(7)
# (data shape, bias shape): every bias shape NumPy can broadcast against the data.
cases = [
    ((2, 3), ()),
    ((2, 3), (1,)),
    ((2, 3), (3,)),
    ((2, 3), (1, 3)),
    ((2, 3), (2, 1)),
    ((2, 3), (1, 1)),
    ((2, 3), (2, 3)),
    ((4, 2, 3), (1, 3)),
    ((4, 2, 3), (2, 1)),
]

# "Every bias shape": the shapes of at most two axes that broadcast against (2, 3) without
# changing the output's shape, enumerated, are exactly the ones above.
every = {
    shape
    for ndim in range(3)
    for shape in itertools.product(*[(1, size) for size in (2, 3)[2 - ndim :]])
}
assert every == {bias for data, bias in cases if data == (2, 3)}, every

rows = []
for data_shape, bias_shape in cases:
    data = rng.standard_normal(data_shape)
    bias = rng.standard_normal(bias_shape)
    with record() as recording:
        gradient = grad(lambda b, data=data: anp.sum(data + b))(bias)
    stages = helpers.unbroadcast_events(recording.events)
    leading = [e.detail["axis"] for e in stages if e.detail["stage"] == "sum_leading"]
    keepdims = [e.detail["axis"] for e in stages if e.detail["stage"] == "sum_keepdims"]
    # The rule stated in the text: one leading sum (of the first axis) per missing axis, one
    # keepdims sum per size-1 axis of the target that the data stretched.
    missing = len(data_shape) - len(bias_shape)
    stretched = [
        axis for axis, size in enumerate(bias_shape) if size == 1 and data_shape[missing + axis] != 1
    ]
    # Uses of each entry, counted another way: broadcast the positions of b and count them.
    positions = np.broadcast_to(np.arange(int(np.prod(bias_shape))).reshape(bias_shape), data_shape)
    uses = np.bincount(positions.ravel())
    assert np.all(uses == uses[0])
    fd = central_differences(lambda b, data=data: np.sum(data + b), bias)
    rows.append(
        [
            helpers.given_shape(bias_shape),
            helpers.shape_cell(np.broadcast_shapes(data_shape, bias_shape), data_shape),
            helpers.axes_cell(leading, [0] * missing),
            helpers.axes_cell(keepdims, stretched),
            helpers.value_cell(gradient, fd, rtol=1e-8),
            helpers.shape_cell(np.shape(gradient), bias_shape),
            checked(int(np.prod(data_shape)) // int(np.prod(bias_shape, dtype=int)), against=int(uses[0])),
        ]
    )

print(
    md_table(
        [
            "`b.shape`",
            "output shape",
            "leading sums (axis)",
            "keepdims sums (axis)",
            "`dL/db` for `L = sum(data + b)`",
            "its shape",
            "uses of each entry",
        ],
        rows,
    )
)
print()
print(
    text(
        "All {n} gradients have the shape of `b`, and each entry equals the number of output "
        "positions that entry reached, checked against finite differences. The {bias} bias on "
        "{data} data needs both stages: one leading sum, then a keepdims sum.",
        n=given(len(cases)),
        bias=helpers.given_shape((1, 3)),
        data=helpers.given_shape((4, 2, 3)),
    )
)
