"""Pitfall 2: an unreduced (m, n) gradient applied to an (n,) bias."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, checked, given, md_table, observed, text

m, n = 6, 3
learning_rate = 0.1
rng = np.random.default_rng(5)
x = rng.normal(size=(m, n))
target = rng.normal(size=(m, n))
bias = rng.normal(size=n)


def loss(b, inputs, targets):
    return anp.mean((inputs + b - targets) ** 2)


# --8<-- [start:unreduced]
upstream = 2 * (x + bias - target) / x.size  # d(loss)/dY, shape (m, n)
bias_gradient_unreduced = upstream  # forgot to sum over the batch axis
bias_gradient_right = upstream.sum(axis=0)  # (n,)

try:
    in_place = bias.copy()
    in_place -= learning_rate * bias_gradient_unreduced
    in_place_outcome = None
except ValueError as error:
    in_place_outcome = error

bias_after_bad_step = bias - learning_rate * bias_gradient_unreduced  # silently (m, n)
bias_after_good_step = bias - learning_rate * bias_gradient_right
# --8<-- [end:unreduced]

assert_shape_then_close(bias_gradient_right, grad(loss)(bias, x, target), rtol=1e-12)
assert isinstance(in_place_outcome, ValueError)
assert bias_after_bad_step.shape == (m, n)

# The swollen "bias" still works at this batch size, so nothing crashes...
loss_after_bad = float(loss(bias_after_bad_step, x, target))
loss_after_good = float(loss(bias_after_good_step, x, target))
# ...but each row now has its own bias, so this is a different model taking a different step.
assert not np.isclose(loss_after_bad, loss_after_good)
rows_differ = not np.allclose(bias_after_bad_step, bias_after_bad_step[0])
assert rows_differ

# The next batch of a different size exposes it.
next_batch = rng.normal(size=(m - 2, n))
try:
    _ = next_batch + bias_after_bad_step
    next_batch_outcome = None
except ValueError as error:
    next_batch_outcome = error
assert isinstance(next_batch_outcome, ValueError)


def raised(outcome, expected: type) -> object:
    """The exception a run raised, named in the table; its message is shown verbatim below it."""
    return text(
        "raises {kind}",
        kind=checked(type(outcome).__name__, against=expected.__name__, shown_as=lambda v: f"`{v}`"),
    )


# The loss after each step, recomputed without the engine: the mean squared residual, where the
# swollen bias gives each row its own bias.
def loss_by_hand(b):
    residual = np.broadcast_to(b, x.shape) + x - target
    return sum(float(r) ** 2 for r in residual.ravel()) / x.size


ROUNDING = 1e-12  # a Python sum against NumPy's pairwise sum
bias_shape, upstream_shape = given(bias.shape), checked(upstream.shape, against=x.shape)
rows = [
    [
        "`b -= lr * G`",
        text("{a} vs {b}", a=bias_shape, b=upstream_shape),
        raised(in_place_outcome, ValueError),
    ],
    [
        "`b = b - lr * G`",
        text("{a} vs {b}", a=bias_shape, b=upstream_shape),
        text(
            "no error: `b` is now {shape}, one bias per row",
            shape=checked(bias_after_bad_step.shape, against=np.broadcast_shapes(bias.shape, x.shape)),
        ),
    ],
    [
        "loss on the same batch after one step",
        "",
        text(
            "{bad:.4f} with the swollen `b`, {good:.4f} with the right step: "
            "training goes on, with the wrong numbers",
            bad=checked(loss_after_bad, against=loss_by_hand(bias_after_bad_step), rtol=ROUNDING),
            good=checked(loss_after_good, against=loss_by_hand(bias_after_good_step), rtol=ROUNDING),
        ),
    ],
    [
        text("next batch of {rows} rows", rows=given(next_batch.shape[0])),
        text("{a} + {b}", a=given(next_batch.shape), b=checked(bias_after_bad_step.shape, against=x.shape)),
        raised(next_batch_outcome, ValueError),
    ],
]
print(md_table(["what you run", "shapes", "what happens"], rows))
print()
print("The two messages, in the table's order:")
print()
print(
    observed(
        "\n".join(f"{type(error).__name__}: {error}" for error in (in_place_outcome, next_batch_outcome))
    )
)
