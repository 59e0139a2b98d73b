"""The vector-bias experiment: arange(6).reshape(2, 3) + [10, 20, 30]; the gradient is [2, 2, 2]."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, fmt_array_inline, fmt_shape, load_snippet_module, md_table
from bookkit.checks import central_differences

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

# --8<-- [start:experiment]
matrix = np.arange(6.0).reshape(2, 3)
b = np.array([10.0, 20.0, 30.0])
output = matrix + b  # both rows share b
# dL/db for L = sum(matrix + b):
grad_b = grad(lambda b: anp.sum(matrix + b))(b)
# --8<-- [end:experiment]

assert_shape_then_close(output, matrix + np.stack([b, b]))
rows_sharing_b = matrix.shape[0]
assert_shape_then_close(grad_b, np.full(b.shape, float(rows_sharing_b)))
fd = central_differences(lambda b: np.sum(matrix + b), b)
assert_shape_then_close(grad_b, fd, rtol=1e-8)

S, V = helpers.shape_cell, helpers.value_cell
print(md_table(
    ["quantity", "value", "shape"],
    [
        ["`matrix`", V(matrix), S(matrix.shape)],
        ["`b`", V(b), S(b.shape)],
        ["`output = matrix + b`", V(output), S(output.shape)],
        ["`dL/doutput` (seed from `sum`)", V(np.ones_like(output)), S(output.shape)],
        ["`dL/db`", V(grad_b), S(grad_b.shape)],
        ["finite difference of `L` in `b`", V(np.round(fd, 6)), S(fd.shape)],
    ],
))
print()
print(md_table(
    ["direction", "from", "operation", "to"],
    [
        ["forward", f"`b` {S(b.shape)}", "broadcast along a new axis 0, then add",
         f"`output` {S(output.shape)}"],
        ["backward", f"`dL/doutput` {S(output.shape)}", "sum over axis 0 (the rows)",
         f"`dL/db` {S(grad_b.shape)}"],
    ],
))
print()
print(
    f"Each entry of `b` is used once per row, and there are {rows_sharing_b} rows, so each "
    f"entry of the gradient is {fmt_array_inline(grad_b[0])}: `{fmt_array_inline(grad_b)}`, with shape "
    f"`{fmt_shape(grad_b.shape)}` like `b`."
)
