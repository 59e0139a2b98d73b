"""Self-test for the broadcasting Jacobian chapter: every answer computed and checked here."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian
from bookkit import assert_shape_then_close, collapsible, fmt_array, fmt_shape

rng = np.random.default_rng(99)

# Exercise 1: the Jacobian of a (3, 1) parameter broadcast into (2, 3, 4).
target_shape = (2, 3, 4)
column = rng.normal(size=(3, 1))
full_jacobian = jacobian(lambda p: anp.zeros(target_shape) + p)(column)
as_matrix = full_jacobian.reshape(int(np.prod(target_shape)), column.size)
ones_per_column = as_matrix.sum(axis=0)
copies = target_shape[0] * target_shape[2]
assert full_jacobian.shape == target_shape + column.shape
assert np.array_equal(ones_per_column, np.full(column.size, copies))
assert set(np.unique(as_matrix)) == {0.0, 1.0}

print(
    collapsible(
        "Exercise 1. A parameter of shape (3, 1) is broadcast into (2, 3, 4). What shape does "
        "the engine's jacobian return, what is its matrix form, and how many ones does each "
        "column hold?",
        f"`jacobian` returns shape `{fmt_shape(full_jacobian.shape)}`: output axes, then input "
        f"axes. Flattened it is a `{fmt_shape(as_matrix.shape)}` matrix of zeros and ones. Each "
        f"entry is copied along output axis 0 (size {target_shape[0]}) and output axis 2 (size "
        f"{target_shape[2]}), so each column holds {int(ones_per_column[0])} ones. Its transpose "
        "sums output axis 0 away and sums output axis 2 with keepdims.",
    )
)

# Exercise 2: LayerNorm's scale gamma of shape (d,) applied to (B, T, d).
batch, time, features = 2, 3, 4
normalized = rng.normal(size=(batch, time, features))
upstream = rng.normal(size=(batch, time, features))
gamma = rng.normal(size=features)
gamma_gradient = grad(lambda g: anp.sum(upstream * (normalized * g)))(gamma)
manual = (upstream * normalized).sum(axis=(0, 1))
assert_shape_then_close(gamma_gradient, manual)

print(
    collapsible(
        "Exercise 2. LayerNorm multiplies normalized activations of shape (B, T, d) by a scale "
        "gamma of shape (d,). Which axes does gamma's gradient sum, and is keepdims needed?",
        f"Both leading axes are new, so the gradient is `(G * x_hat).sum(axis=(0, 1))`, shape "
        f"`{fmt_shape(manual.shape)}`, no keepdims. With B = {batch}, T = {time}, d = {features} "
        f"the engine gives `{fmt_array(gamma_gradient)}`, equal to the manual sum.",
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
assert np.isclose(ratio, large / small, rtol=1e-12)

print(
    collapsible(
        f"Exercise 3. You train with the sum loss and shrink the batch from {large} to {small}. "
        "How must the learning rate change to keep the step size?",
        f"The sum-loss gradient is proportional to the batch size: on the same data the "
        f"{large}-row gradient is {ratio:g} times the {small}-row one. Multiply the learning rate "
        f"by {large // small}. With a mean loss you would change nothing.",
    )
)

# Exercise 4: pair each Kronecker matrix with its flattening.
m, n = 3, 2
cotangent = rng.normal(size=(m, n))
column_major_jacobian = np.kron(np.eye(n), np.ones((m, 1)))
right = column_major_jacobian.T @ cotangent.T.reshape(-1)
assert_shape_then_close(right, cotangent.sum(axis=0))
wrong = column_major_jacobian.T @ cotangent.reshape(-1)
assert not np.allclose(wrong, cotangent.sum(axis=0))

print(
    collapsible(
        "Exercise 4. You build the Jacobian as np.kron(np.eye(n), np.ones((m, 1))). Which "
        "flattening of G must you multiply its transpose with?",
        "It is $I_n \\otimes \\mathbf{1}_m$, the column-major convention, so flatten G column by "
        'column: `G.flatten(order="F")` or `G.T.reshape(-1)`. With $m = 3$, $n = 2$ that gives '
        f"`{fmt_array(right)}`, the column sums of G. The C-order flattening `G.reshape(-1)` gives "
        f"`{fmt_array(wrong)}`, which is wrong.",
    )
)
