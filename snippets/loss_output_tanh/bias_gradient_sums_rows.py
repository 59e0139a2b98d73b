"""Broadcast forward, sum backward: the seed's dY = [[1, 2], [3, 4]] gives db = [4, 6]."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, fmt_array, fmt_shape

X = np.array([[0.5, -1.0], [2.0, 0.25]])
b = np.array([0.1, -0.2])
dY = np.array([[1.0, 2.0], [3.0, 4.0]])

# --8<-- [start:by_hand]
db_by_hand = dY.sum(axis=0)          # b was used by every row: add the rows' contributions
dX_by_hand = dY                      # X was used once per entry: pass dY through
# --8<-- [end:by_hand]


def surrogate_loss(b):
    # A loss whose gradient with respect to Y is exactly dY: L = sum(Y * dY).
    return anp.sum((X + b) * dY)


db_engine = grad(surrogate_loss)(b)
assert_shape_then_close(db_engine, db_by_hand)
assert_shape_then_close(grad(lambda X_: anp.sum((X_ + b) * dY))(X), dX_by_hand)
print(
    f"With $dY$ = `{' '.join(fmt_array(dY).split())}`, the hand-written sum gives "
    f"`db = {fmt_array(db_by_hand)}` with shape `{fmt_shape(db_by_hand.shape)}`, the shape of "
    f"`b`; `ad_core` returns `{fmt_array(db_engine)}` for the same loss. No division by the batch "
    "size appears: the forward pass added, it did not average."
)
