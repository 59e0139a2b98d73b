"""Broadcast forward, sum backward: dY = [[1, 2], [3, 4]] gives db = [4, 6]."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, checked, given, text

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
# Column sums by hand: 1 + 3 and 2 + 4.
db_closed_form = np.array([dY[0, 0] + dY[1, 0], dY[0, 1] + dY[1, 1]])
print(text(
    "With $dY$ = {dY}, the hand-written sum gives `db =` {db} with shape {shape}, the shape of "
    "`b`; `ad_core` returns {engine} for the same loss. No division by the batch size appears: "
    "the forward pass added, it did not average.",
    dY=given(dY),
    db=checked(db_by_hand, against=db_closed_form),
    shape=checked(db_by_hand.shape, against=b.shape),
    engine=checked(db_engine, against=db_closed_form),
))
