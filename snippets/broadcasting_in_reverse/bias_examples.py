"""The chapter's two examples, both routes to their gradients, and the copy map of the vector bias.

x = [1, 2, 3] + b = 2.0, and arange(6).reshape(2, 3) + [10, 20, 30]: the gradients of the sums
are 3.0 (shape ()) and [2, 2, 2] (shape (3,)), whether the all-ones cotangent is injected with
make_vjp or made by the VJP of sum. The copy map is read off the engine's Jacobian of the
broadcast and checked against NumPy's broadcast of the entries' indices.
"""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian, make_vjp
from ad_core.recorder import record
from bookkit import Rendered, central_differences, checked, given, load_snippet_module, md_table, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
V, S, GV, GS = helpers.value_cell, helpers.shape_cell, helpers.given_value, helpers.given_shape

# --8<-- [start:experiment]
x, scalar_b = np.array([1.0, 2.0, 3.0]), 2.0
matrix, vector_b = np.arange(6.0).reshape(2, 3), np.array([10.0, 20.0, 30.0])


def both_routes(data, b):
    # First route: trace the vector-valued function, inject an all-ones cotangent yourself.
    vjp, output = make_vjp(lambda b: data + b)(b)
    from_vjp = vjp(np.ones_like(output))
    # Second route: grad of the sum; the VJP of sum makes the ones.
    from_grad = grad(lambda b: anp.sum(data + b))(b)
    return output, from_vjp, from_grad
# --8<-- [end:experiment]


def entering_unbroadcast(run):
    """The one array `unbroadcast` receives while `run()` computes a gradient."""
    with record() as recording:
        run()
    entered = [e.value for e in helpers.unbroadcast_events(recording.events) if e.detail["stage"] == "enter"]
    assert len(entered) == 1, entered
    return entered[0]


columns = []
for data, b in [(x, scalar_b), (matrix, vector_b)]:
    output, from_vjp, from_grad = both_routes(data, b)
    fd = central_differences(lambda b, data=data: np.sum(data + b), b)
    # Both routes hand unbroadcast the same array: add's identity VJP of the ones.
    via_vjp = entering_unbroadcast(lambda data=data, b=b, output=output:
                                   make_vjp(lambda b: data + b)(b)[0](np.ones_like(output)))
    via_grad = entering_unbroadcast(lambda data=data, b=b: grad(lambda b: anp.sum(data + b))(b))
    np.testing.assert_array_equal(via_vjp, via_grad)
    # Each entry of b reaches output.size / b.size positions, and each sends back a one.
    uses = output.size // np.size(b)
    columns.append([
        (GV(data), GS(np.shape(data))),
        (GV(b), GS(np.shape(b))),
        (V(output, data + np.broadcast_to(b, data.shape)), S(output.shape, data.shape)),
        (V(via_grad, np.ones(data.shape)), S(np.shape(via_grad), output.shape)),
        (V(from_grad, fd, rtol=1e-8), S(np.shape(from_grad), np.shape(b))),
        (V(from_vjp, np.full(np.shape(b), float(uses))), S(np.shape(from_vjp), np.shape(b))),
    ])

labels = ["input `x` / `matrix`", "bias `b`", "output `x + b`",
          "`x` entering `unbroadcast` (both routes)", "`grad` of `sum` (central differences agree)",
          "`make_vjp`, all-ones cotangent"]
print(md_table(
    ["quantity", "scalar bias", "shape", "vector bias", "shape"],
    [[label, *scalar, *vector] for label, scalar, vector in zip(labels, *columns, strict=True)],
))
print()
print(text(
    "Each copy of `b` sends back one unit of the cotangent. The scalar sits in {n_scalar} places, "
    "so its gradient is {g_scalar}; each entry of the vector sits in {n_rows} rows, so its "
    "gradient is {g_vector}. The shapes are {s_scalar} and {s_vector}, the shapes of `b`: the "
    "output's shape, or any other, would be wrong however right the numbers.",
    n_scalar=checked(x.size, against=np.broadcast_to(scalar_b, x.shape).size),
    g_scalar=checked(grad(lambda b: anp.sum(x + b))(scalar_b), against=1.0 + 1.0 + 1.0),
    n_rows=given(matrix.shape[0]),
    g_vector=V(grad(lambda b: anp.sum(matrix + b))(vector_b), matrix[0] * 0 + 2.0),
    s_scalar=S(np.shape(columns[0][4][0].value), ()),
    s_vector=S(np.shape(columns[1][4][0].value), vector_b.shape),
))

# The copy map: the engine's Jacobian of b -> matrix + b has a one where output position (i, j)
# copies entry k of b. NumPy's own broadcast of the indices 0, 1, 2 says which k that is.
J = jacobian(lambda b: matrix + b)(vector_b)              # shape (2, 3, 3)
copied = np.argmax(J, axis=-1)                            # the entry each position copies
assert np.all(J.sum(axis=-1) == 1)                        # each position copies exactly one entry
np.testing.assert_array_equal(copied, np.broadcast_to(np.arange(vector_b.size), matrix.shape))
gradient = grad(lambda b: anp.sum(matrix + b))(vector_b)
output = matrix + vector_b

lines = [Rendered("```mermaid\nflowchart LR")]
lines.append(Rendered('    subgraph input ["b"]'))
for k in range(vector_b.size):
    arrows = int(np.sum(copied == k))
    lines.append(text('        b{k}(["b[{k}] = {value}<br/>gradient {g}"])', k=given(k),
                      value=given(vector_b[k]), g=checked(gradient[k], against=float(arrows))))
lines.append(Rendered("    end"))
lines.append(Rendered('    subgraph out ["matrix + b"]'))
for i, j in np.ndindex(matrix.shape):
    lines.append(text('        y{i}{j}["[{i}, {j}] = {value}"]', i=given(i), j=given(j),
                      value=checked(output[i, j], against=matrix[i, j] + vector_b[copied[i, j]])))
lines.append(Rendered("    end"))
for i, j in np.ndindex(matrix.shape):
    lines.append(text("    b{k} --> y{i}{j}", k=checked(int(copied[i, j]), against=j),
                      i=given(i), j=given(j)))
lines.append(Rendered("```"))
print()
print(Rendered("\n").join(lines) + "\n")

B = J.reshape(matrix.size, vector_b.size)
B_scalar = jacobian(lambda b: x + b)(scalar_b).reshape(-1, 1)
# Written down directly: two stacked identities, and a column of ones.
np.testing.assert_array_equal(B, np.kron(np.ones((matrix.shape[0], 1)), np.eye(vector_b.size)))
np.testing.assert_array_equal(B_scalar, np.ones((x.size, 1)))
print(text(
    "Each arrow is a one in the engine's `jacobian` of `b ↦ matrix + b`. Flattened row by row it "
    "is $B$, of shape {B_shape}: two identity blocks stacked. Backward, every arrow is reversed "
    "and what arrives is added, which is $B^\\top$: each entry of `b` collects {arrows} ones. For "
    "the scalar bias, $B$ is a column of {n} ones, of shape {B_scalar}, and $B^\\top$ adds all "
    "{n} entries of the cotangent.",
    B_shape=S(B.shape, (matrix.size, vector_b.size)),
    arrows=checked(int(np.sum(copied == 0)), against=matrix.shape[0]),
    n=given(x.size),
    B_scalar=S(B_scalar.shape, (x.size, 1)),
))
