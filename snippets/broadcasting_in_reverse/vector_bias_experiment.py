"""The vector-bias experiment: arange(6).reshape(2, 3) + [10, 20, 30]; the gradient is [2, 2, 2]."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from bookkit import checked, given, load_snippet_module, md_table, text
from bookkit.checks import central_differences
from bookkit.formatting import _fmt_array_inline as fmt_array_inline

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

# --8<-- [start:experiment]
matrix = np.arange(6.0).reshape(2, 3)
b = np.array([10.0, 20.0, 30.0])
output = matrix + b  # both rows share b
# dL/db for L = sum(matrix + b):
grad_b = grad(lambda b: anp.sum(matrix + b))(b)
# --8<-- [end:experiment]

rows_sharing_b = matrix.shape[0]
fd = central_differences(lambda b: np.sum(matrix + b), b)

S, V = helpers.shape_cell, helpers.value_cell
print(
    md_table(
        ["quantity", "value", "shape"],
        [
            ["`matrix`", helpers.given_value(matrix), helpers.given_shape(matrix.shape)],
            ["`b`", helpers.given_value(b), helpers.given_shape(b.shape)],
            ["`output = matrix + b`", V(output, matrix + np.stack([b, b])), S(output.shape, matrix.shape)],
            [
                "`dL/doutput` (seed from `sum`)",
                V(make_vjp(anp.sum)(output)[0](1.0), central_differences(np.sum, output), rtol=1e-8),
                S(output.shape, matrix.shape),
            ],
            ["`dL/db`", V(grad_b, fd, rtol=1e-8), S(grad_b.shape, b.shape)],
            [
                "finite difference of `L` in `b`",
                checked(
                    fd,
                    against=np.full(b.shape, float(rows_sharing_b)),
                    rtol=1e-8,
                    shown_as=lambda v: helpers.code(fmt_array_inline(np.round(v, 6))),
                ),
                S(fd.shape, b.shape),
            ],
        ],
    )
)
print()
print(
    md_table(
        ["direction", "from", "operation", "to"],
        [
            [
                "forward",
                text("`b` {s}", s=helpers.given_shape(b.shape)),
                "broadcast along a new first axis, then add",
                text("`output` {s}", s=S(output.shape, matrix.shape)),
            ],
            [
                "backward",
                text("`dL/doutput` {s}", s=S(output.shape, matrix.shape)),
                "sum over the first axis (the rows)",
                text("`dL/db` {s}", s=S(grad_b.shape, b.shape)),
            ],
        ],
    )
)
print()
print(
    text(
        "Each entry of `b` is used once per row, and there are {rows} rows, so each entry of the "
        "gradient is {entry}: {gradient}, with shape {shape} like `b`.",
        rows=given(rows_sharing_b),
        entry=checked(grad_b[0], against=float(rows_sharing_b)),
        gradient=V(grad_b, fd, rtol=1e-8),
        shape=S(grad_b.shape, b.shape),
    )
)
