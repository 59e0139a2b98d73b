"""A row you can do in your head: probabilities [0.2, 0.3, 0.5], class 1, batch of 2."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, fmt_array

row_probs = np.array([0.2, 0.3, 0.5])
other_probs = np.array([0.6, 0.3, 0.1])
logits = np.log(np.stack([row_probs, other_probs]))     # softmax(log p) = p
targets = np.array([1, 0])
B = logits.shape[0]


def loss(Z):
    shifted = Z - anp.max(Z, axis=1, keepdims=True)
    log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
    return -anp.mean(log_probs[np.arange(B), targets])


# --8<-- [start:by_hand]
by_hand = (row_probs - np.eye(3)[1]) / B           # (P - one_hot) / B
# --8<-- [end:by_hand]
engine_row = grad(loss)(logits)[0]
assert_shape_then_close(engine_row, by_hand, atol=1e-15)
row_sum = float(engine_row.sum())
assert abs(row_sum) < 1e-15
print(
    f"Probabilities `{fmt_array(row_probs)}` in row 0, correct class {targets[0]} (counting from "
    f"zero), batch of {B}: the logits are $\\log P$, so the softmax gives these probabilities back."
)
print()
print(
    f"`ad_core` gives `{fmt_array(engine_row)}` for this row, and $(P - \\mathbf{{1}}_y)/B$ "
    f"gives `{fmt_array(by_hand)}`. The entries sum to {row_sum:.1e}, zero up to rounding. "
    "Gradient descent subtracts the gradient: it raises the logit of the correct class "
    "(the only negative entry) and lowers the other two, in proportion to how much probability "
    "they took."
)
