"""The same matrix used the other way: sum and broadcasting are transposes, so their VJPs swap
roles; and forward mode's `broadcast` applies B itself to a tangent (recorded while make_jvp
runs matrix + b)."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import jacobian, make_jvp, make_vjp
from ad_core.numpy.jvps import broadcast
from ad_core.numpy.vjps import grad_sum
from ad_core.recorder import record
from bookkit import assert_shape_then_close, events_table, load_snippet_module, show_excerpt, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
rng = np.random.default_rng(3)
matrix, b = helpers.MATRIX, helpers.VECTOR_BIAS

# B: the broadcast of b over the rows, flattened row by row.
J_broadcast = jacobian(lambda b: matrix + b)(b).reshape(6, 3)
# The sum over the rows, flattened the same way.
J_sum_rows = jacobian(lambda Y: anp.sum(Y, axis=0))(matrix)
J_sum_rows = J_sum_rows.reshape(3, 6)
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
print(text(
    "The engine's Jacobian of the row sum `Y ↦ anp.sum(Y, axis=0)`, flattened to shape {sum_shape}, "
    "is the transpose of $B$, the broadcast's Jacobian of shape {B_shape}. One matrix, used both "
    "ways: the VJP of `sum` copies the cotangent into every row, and the VJP of the broadcast "
    "sums the rows. `grad_sum` does the copying with `broadcast_to`:",
    sum_shape=S(J_sum_rows.shape, (b.size, matrix.size)),
    B_shape=S(J_broadcast.shape, (matrix.size, b.size)),
))
print()
print(show_excerpt(grad_sum, r"return lambda g: anp\.broadcast_to",
                   full_listing="[Writing VJP rules](vjp-rules.md)"))
print()
print("[Forward mode](forward-mode.md) applies $B$ itself: the JVP rule of `add` expands the "
      "tangent of `b` to the output's shape with `broadcast`, stage by stage:")
print()
print(show_excerpt(broadcast, r"while anp\.ndim\(x\) < target_ndim", r"x = anp\.repeat",
                   full_listing="[Forward mode](forward-mode.md)"))

tangent_b = np.array([1.0, 0.0, 0.0])  # nudge only b[0]

with record() as recording:
    output, tangent_out = make_jvp(lambda b: matrix + b)(b)(tangent_b)

stages = [event for event in recording.events if event.kind == "broadcast"]
assert [event.detail["stage"] for event in stages] == ["enter", "expand_dims", "repeat"]
# What each stage must hold: the tangent of b, the same with a new first axis of size one, then
# that row repeated once per row of the output (NumPy's broadcast_to, not the engine).
expected = {
    "enter": tangent_b,
    "expand_dims": tangent_b.reshape(1, -1),
    "repeat": np.broadcast_to(tangent_b, matrix.shape),
}


class Shape(tuple):
    """A new tuple object, so that checked() never sees the shared empty tuple twice."""


print()
print(
    events_table(
        stages,
        ["step", "stage", "axis", "value", "shape"],
        checks={
            "axis": lambda e: {"enter": None, "expand_dims": 0, "repeat": 0}[e.detail["stage"]],
            "value": lambda e: expected[e.detail["stage"]],
            "shape": lambda e: Shape(np.shape(expected[e.detail["stage"]])),
        },
    )
)
assert_shape_then_close(output, matrix + b)
print()
print(
    text(
        "A nudge to `b[0]` alone moves the whole first column of the output ({column}): the tangent "
        "is copied, where the cotangent was summed. Stage by stage, the leading sum's transpose is "
        "`expand_dims` followed by `repeat` (insert the axis with size one, then copy along it), and "
        "a keepdims sum's transpose is `repeat` alone.",
        # The tangent from central differences of the forward map along the nudge.
        column=helpers.value_cell(
            tangent_out,
            (matrix + (b + 1e-6 * tangent_b) - (matrix + (b - 1e-6 * tangent_b))) / 2e-6,
            rtol=1e-8,
            atol=1e-8,
        ),
    )
)
