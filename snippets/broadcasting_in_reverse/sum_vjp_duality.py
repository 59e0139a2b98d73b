"""sum and broadcasting are transposes of each other, so their VJPs swap roles."""

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_vjp
from ad_core.numpy.vjps import grad_sum
from bookkit import assert_shape_then_close, fmt_shape, load_snippet_module, md_table, show_source

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")
rng = np.random.default_rng(3)
matrix, b = helpers.MATRIX, helpers.VECTOR_BIAS

# --8<-- [start:duality]
# B: the broadcast of b over the rows, flattened row by row.
J_broadcast = jacobian(lambda b: matrix + b)(b).reshape(6, 3)
# The sum over the rows, flattened the same way.
J_sum_rows = jacobian(lambda Y: anp.sum(Y, axis=0))(matrix)
J_sum_rows = J_sum_rows.reshape(3, 6)
# --8<-- [end:duality]
assert_shape_then_close(J_sum_rows, J_broadcast.T)

v = rng.standard_normal(b.shape)           # a cotangent for the output of sum
G = rng.standard_normal(matrix.shape)      # a cotangent for the output of x + b
sum_vjp, summed = make_vjp(lambda Y: anp.sum(Y, axis=0))(matrix)
add_vjp, added = make_vjp(lambda b: matrix + b)(b)
back_through_sum = sum_vjp(v)
back_through_add = add_vjp(G)
assert_shape_then_close(back_through_sum, np.broadcast_to(v, matrix.shape))  # VJP of sum copies
assert_shape_then_close(back_through_add, G.sum(axis=0))                     # VJP of add sums
# Adjoint identities, the definition of a transpose: <A x, y> = <x, A^T y>.
assert np.isclose(np.sum(summed * v), np.sum(matrix * back_through_sum))
assert np.isclose(np.sum(added * G), np.sum(b * back_through_add) + np.sum(matrix * G))

S = helpers.shape_cell
print(md_table(
    ["forward operation", "forward shapes", "its VJP", "backward shapes"],
    [
        ["`anp.sum(Y, axis=0)`", f"{S(matrix.shape)} → {S(summed.shape)}",
         "copies `v` into every row (`broadcast_to`)",
         f"{S(v.shape)} → {S(back_through_sum.shape)}"],
        ["`x + b` (for `b`)", f"{S(b.shape)} → {S(added.shape)}",
         "sums `G` over the rows (`unbroadcast`)",
         f"{S(G.shape)} → {S(back_through_add.shape)}"],
    ],
))
print()
print(
    f"The engine's Jacobian of the row sum, flattened to shape `{fmt_shape(J_sum_rows.shape)}`, "
    f"equals the transpose of the broadcast's Jacobian `B` of shape "
    f"`{fmt_shape(J_broadcast.shape)}` (asserted). One matrix, used in both directions: that "
    "is why each operation's backward pass is the other operation's forward pass."
)
print()
print("The engine's rule for `sum` does the copying with `broadcast_to`:")
print()
print(show_source(grad_sum))
