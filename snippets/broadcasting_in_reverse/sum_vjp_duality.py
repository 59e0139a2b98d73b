"""sum and broadcasting are transposes of each other, so their VJPs swap roles."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_vjp
from ad_core.numpy.vjps import grad_sum
from bookkit import assert_shape_then_close, load_snippet_module, md_table, show_excerpt, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
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

v = rng.standard_normal(b.shape)  # a cotangent for the output of sum
G = rng.standard_normal(matrix.shape)  # a cotangent for the output of x + b
sum_vjp, summed = make_vjp(lambda Y: anp.sum(Y, axis=0))(matrix)
add_vjp, added = make_vjp(lambda b: matrix + b)(b)
back_through_sum = sum_vjp(v)
back_through_add = add_vjp(G)
assert_shape_then_close(back_through_sum, np.broadcast_to(v, matrix.shape))  # VJP of sum copies
assert_shape_then_close(back_through_add, G.sum(axis=0))  # VJP of add sums
# Adjoint identities, the definition of a transpose: <A x, y> = <x, A^T y>.
assert np.isclose(np.sum(summed * v), np.sum(matrix * back_through_sum))
assert np.isclose(np.sum(added * G), np.sum(b * back_through_add) + np.sum(matrix * G))

S = helpers.shape_cell
print(
    md_table(
        ["forward operation", "forward shapes", "its VJP", "backward shapes"],
        [
            [
                "`anp.sum(Y, axis=0)`",
                text("{a} → {b}", a=helpers.given_shape(matrix.shape), b=S(summed.shape, matrix.shape[1:])),
                "copies `v` into every row (`broadcast_to`)",
                text("{a} → {b}", a=helpers.given_shape(v.shape), b=S(back_through_sum.shape, matrix.shape)),
            ],
            [
                "`x + b` (for `b`)",
                text("{a} → {b}", a=helpers.given_shape(b.shape), b=S(added.shape, matrix.shape)),
                "sums `G` over the rows (`unbroadcast`)",
                text("{a} → {b}", a=helpers.given_shape(G.shape), b=S(back_through_add.shape, b.shape)),
            ],
        ],
    )
)
print()
print(
    text(
        "The engine's Jacobian of the row sum, flattened to shape {sum_shape}, equals the transpose "
        "of the broadcast's Jacobian `B` of shape {B_shape} (checked). One matrix, used in both "
        "directions: that is why each operation's backward pass is the other operation's forward "
        "pass.",
        sum_shape=S(J_sum_rows.shape, (b.size, matrix.size)),
        B_shape=S(J_broadcast.shape, (matrix.size, b.size)),
    )
)
print()
print("The engine's rule for `sum` does the copying with `broadcast_to`:")
print()
print(show_excerpt(grad_sum, r"return lambda g: anp\.broadcast_to",
                   full_listing="[Writing VJP rules](vjp-rules.md)"))
