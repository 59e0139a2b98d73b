"""A row you can do in your head: probabilities [0.2, 0.3, 0.5], class 1, batch of 2."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, text

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
row_sum = float(engine_row.sum())
# In your head: (0.2 - 0, 0.3 - 1, 0.5 - 0) / 2.
in_your_head = np.array([0.1, -0.35, 0.25])
print(text(
    "Probabilities {p} in the first row, correct class {y} (counting from zero), batch of {B}: "
    "the logits are $\\log P$, so the softmax gives these probabilities back.",
    p=given(row_probs), y=given(int(targets[0])), B=given(B),
))
print()
print(text(
    "`ad_core` gives {engine} for this row, and $(P - \\mathbf{{1}}_y)/B$ gives {hand}. The "
    "entries sum to {total}, zero up to rounding. Gradient descent subtracts the gradient: it "
    "raises the logit of the correct class (the only negative entry) and lowers the other two, "
    "in proportion to how much probability they took.",
    engine=checked(engine_row, against=in_your_head, atol=1e-15),
    hand=checked(by_hand, against=in_your_head, atol=1e-15),
    total=checked(row_sum, against=0.0, atol=4 * np.finfo(float).eps, shown_as=lambda v: f"{v:.1e}"),
))
