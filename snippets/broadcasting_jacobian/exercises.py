"""Self-test for the broadcasting Jacobian chapter: every answer computed and checked here."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian
from bookkit import checked, collapsible, fmt_array, given, text

rng = np.random.default_rng(99)
ROUNDING = 1e-12  # the engine and the manual sums add the same terms in different orders

# Exercise 1: the Jacobian of a (3, 1) parameter broadcast into (2, 3, 4).
target_shape = (2, 3, 4)
column = rng.normal(size=(3, 1))
full_jacobian = jacobian(lambda p: anp.zeros(target_shape) + p)(column)
as_matrix = full_jacobian.reshape(int(np.prod(target_shape)), column.size)
ones_per_column = np.unique(as_matrix.sum(axis=0))
assert set(np.unique(as_matrix)) == {0.0, 1.0}
# The copied axes, read off NumPy's broadcast view of the parameter: stride 0, more than one entry.
view = np.broadcast_to(column, target_shape)
copied_axes = [axis for axis, stride in enumerate(view.strides) if stride == 0 and view.shape[axis] > 1]
new_axes = list(range(len(target_shape) - column.ndim))
kept_axes = [axis for axis in copied_axes if axis not in new_axes]
assert copied_axes == [0, 2]

print(
    collapsible(
        text(
            "Exercise {number}. A parameter of shape {p} is broadcast into {t}. What shape does "
            "the engine's jacobian return, what is its matrix form, and how many ones does each "
            "column hold?",
            number=given(1),
            p=given(column.shape),
            t=given(target_shape),
        ),
        text(
            "`jacobian` returns shape {shape}: output axes, then input axes. Flattened it is a "
            "{matrix} matrix of zeros and ones. Each entry is copied along output axis {a} (size "
            "{size_a}) and output axis {b} (size {size_b}), so each column holds {ones} ones. Its "
            "transpose sums output axis {new} away and sums output axis {kept} with keepdims.",
            shape=checked(full_jacobian.shape, against=target_shape + column.shape),
            matrix=checked(as_matrix.shape, against=(view.size, column.size)),
            a=given(copied_axes[0]),
            size_a=given(target_shape[copied_axes[0]]),
            b=given(copied_axes[1]),
            size_b=given(target_shape[copied_axes[1]]),
            ones=checked(
                ones_per_column,
                against=np.array([float(np.prod([target_shape[axis] for axis in copied_axes]))]),
                shown_as=lambda v: str(int(v[0])),
            ),
            new=checked(new_axes, against=[copied_axes[0]], shown_as=lambda v: str(v[0])),
            kept=checked(kept_axes, against=[copied_axes[1]], shown_as=lambda v: str(v[0])),
        ),
    )
)

# Exercise 2: LayerNorm's scale gamma of shape (d,) applied to (B, T, d).
batch, time, features = 2, 3, 4
normalized = rng.normal(size=(batch, time, features))
upstream = rng.normal(size=(batch, time, features))
gamma = rng.normal(size=features)
gamma_gradient = grad(lambda g: anp.sum(upstream * (normalized * g)))(gamma)
by_loops = np.array(
    [
        sum(upstream[i, t, k] * normalized[i, t, k] for i in range(batch) for t in range(time))
        for k in range(features)
    ]
)

print(
    collapsible(
        text(
            "Exercise {number}. LayerNorm multiplies normalized activations of shape (B, T, d) by a "
            "scale gamma of shape (d,). Which axes does gamma's gradient sum, and is keepdims needed?",
            number=given(2),
        ),
        text(
            "Both leading axes are new, so the gradient is `(G * x_hat).sum(axis=(0, 1))`, shape "
            "{shape}, no keepdims. With B = {B}, T = {T}, d = {d} the engine gives {value}, equal "
            "to the sum over the batch and time axes written as loops.",
            shape=checked(gamma_gradient.shape, against=gamma.shape),
            B=given(batch),
            T=given(time),
            d=given(features),
            value=checked(
                gamma_gradient, against=by_loops, rtol=ROUNDING, shown_as=lambda v: f"`{fmt_array(v)}`"
            ),
        ),
    )
)

# Exercise 3: sum loss, batch shrinks from 64 to 16.
small, large, features = 16, 64, 3
small_batch = rng.normal(size=(small, features))
large_batch = np.tile(small_batch, (large // small, 1))
bias = rng.normal(size=features)


def sum_loss(b, x):
    return anp.sum((x + b) ** 2)


ratio = np.linalg.norm(grad(sum_loss)(bias, large_batch)) / np.linalg.norm(grad(sum_loss)(bias, small_batch))
# Closed form: the gradient is 2 Σ_i (x_i + b), and the large batch holds each small row large/small times.
closed_form_ratio = np.linalg.norm(2 * (large_batch + bias).sum(axis=0)) / np.linalg.norm(
    2 * (small_batch + bias).sum(axis=0)
)

print(
    collapsible(
        text(
            "Exercise {number}. You train with the sum loss and shrink the batch from {large} to {small}. "
            "How must the learning rate change to keep the step size?",
            number=given(3),
            large=given(large),
            small=given(small),
        ),
        text(
            "The sum-loss gradient is proportional to the batch size: on the same data the "
            "{large}-row gradient is {ratio:g} times the {small}-row one. Multiply the learning rate "
            "by {factor}. With a mean loss the gradient's scale does not depend on the batch size.",
            large=given(large),
            small=given(small),
            ratio=checked(ratio, against=closed_form_ratio, rtol=ROUNDING),
            factor=checked(round(ratio), against=large // small),
        ),
    )
)

# Exercise 4: pair each Kronecker matrix with its flattening.
m, n = 3, 2
cotangent = rng.normal(size=(m, n))
column_major_jacobian = np.kron(np.eye(n), np.ones((m, 1)))
right = column_major_jacobian.T @ cotangent.T.reshape(-1)
wrong = column_major_jacobian.T @ cotangent.reshape(-1)
column_sums = np.array([sum(cotangent[i, j] for i in range(m)) for j in range(n)])
# Column j of I_n ⊗ 1_m picks positions j·m … j·m + m - 1 of whatever vector it meets.
picked = np.array([cotangent.reshape(-1)[j * m : (j + 1) * m].sum() for j in range(n)])
assert not np.allclose(wrong, column_sums)

print(
    collapsible(
        text(
            "Exercise {number}. You build the Jacobian as `np.kron(np.eye(n), np.ones((m, 1)))`. "
            "Which flattening of G must you multiply its transpose with?",
            number=given(4),
        ),
        text(
            "It is $I_n \\otimes \\mathbf{{1}}_m$, the column-major convention, so flatten G column by "
            'column: `G.flatten(order="F")` or `G.T.reshape(-1)`. With $m = {m}$, $n = {n}$ that gives '
            "{right}, the column sums of G. The C-order flattening `G.reshape(-1)` gives "
            "{wrong}, which is wrong.",
            m=given(m),
            n=given(n),
            right=checked(right, against=column_sums, rtol=ROUNDING, shown_as=lambda v: f"`{fmt_array(v)}`"),
            wrong=checked(wrong, against=picked, rtol=ROUNDING, shown_as=lambda v: f"`{fmt_array(v)}`"),
        ),
    )
)
