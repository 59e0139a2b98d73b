"""Self-test for chapter 13: every worked answer is computed and asserted here."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import collapsible, fmt_array, fmt_shape, md_table
from bookkit.mlp_by_hand import (
    LOSS_TO_HPREACT,
    backward_loss_to_hpreact,
    compare,
    cross_entropy_backward_fused,
    worked_example,
)

example = worked_example()

# 1. The atomic backward pass from logprobs to hpreact.
comparisons = [compare(n, example.hand[n], example.engine[n]) for n in LOSS_TO_HPREACT]
assert all(c.approximate for c in comparisons)
used_twice = ["counts", "logits"]
print(collapsible(
    "Exercise 1 (the course's exercise 1, first half). Write the gradient of every tensor from "
    "`logprobs` back to `hpreact` in atomic steps, without the fused softmax formula.",
    "Draw the forward graph first and mark every tensor that is used twice: "
    f"{' and '.join(f'`{n}`' for n in used_twice)} (the graph above shows both). Then go "
    "backwards one line at a time and give each `d<name>` the shape of `<name>`. The book's "
    "answer is the listing in [the backward pass, step by step]"
    "(loss-output-tanh.md#the-backward-pass-step-by-step). "
    f"Checked against `ad_core`, its {len(comparisons)} gradients all pass the shape check and "
    f"the closeness test; {sum(c.exact for c in comparisons)} of them are even bit-for-bit equal.",
))
print()

# 2. The fused gradient and its zero row sums.
fused = cross_entropy_backward_fused(example.cache["logits"], example.Yb)
row_sums = np.abs(fused.sum(axis=1))
assert row_sums.max() < 1e-16
print(collapsible(
    "Exercise 2 (the course's exercise 2). Derive $\\partial L / \\partial Z$ by index calculus "
    "and explain why every row of the result sums to zero.",
    "The derivation is [above](loss-output-tanh.md#the-three-line-gradient). Each row is "
    "$(P_{b,:} - \\mathbf{1}_{y_b})/B$. Summing over $j$: $\\sum_j P_{bj} = 1$ because a row of "
    "probabilities sums to one, and $\\sum_j \\mathbf{1}[j = y_b] = 1$ because exactly one class "
    "is correct, so the row sums to $(1 - 1)/B = 0$. The same fact follows from invariance: "
    "adding a constant to a row of logits leaves the softmax unchanged, so the directional "
    "derivative along $(1, 1, \\dots, 1)$ is zero. On the chapter's minibatch the largest "
    f"absolute row sum is {row_sums.max():.1e}.",
))
print()

# 3. The counterexample.
broken = backward_loss_to_hpreact(example.params, example.cache, example.Yb, "drop")
first_failing = next(
    n for n in LOSS_TO_HPREACT if not compare(n, broken[n], example.engine[n]).approximate
)
assert first_failing == "counts"
still_right = LOSS_TO_HPREACT[: LOSS_TO_HPREACT.index(first_failing)]
print(collapsible(
    "Exercise 3. Delete the line `dcounts += ...`. Which comparison fails first?",
    f"`d{first_failing}`. The gradients before it ({', '.join(f'`d{n}`' for n in still_right)}) "
    "are computed before the deleted line and stay correct; every gradient after it inherits "
    "the error. Comparing tensor by tensor, from the loss towards the input, points at the "
    "first wrong line instead of leaving you to search the whole network.",
))
print()

# 4. Shape (32, 1) versus (32,).
dcounts_sum = example.hand["counts_sum"]
flat = dcounts_sum[:, 0]
try:
    np.ones_like(example.cache["counts"]) * flat
except ValueError as error:
    message = str(error).split("\n")[0]
else:
    raise AssertionError("broadcasting (32,) against (32, 27) should fail")
print(collapsible(
    f"Exercise 4. `dcounts_sum` has shape `{fmt_shape(dcounts_sum.shape)}`. What goes wrong if "
    f"you keep it as `{fmt_shape(flat.shape)}`?",
    f"NumPy aligns shapes from the right, so `{fmt_shape(flat.shape)}` is matched against the "
    f"class axis of `{fmt_shape(example.cache['counts'].shape)}`, not the batch axis. Here the "
    f"sizes differ and NumPy refuses: `ValueError: {message}`. With a batch of 27 it would "
    "silently add each *example's* value to a *class* column — a wrong gradient with the right "
    "shape. Keep reduced axes with `keepdims=True`.",
))
print()

# 5. Ties in the maximum.
tied = np.array([[1.0, 1.0, -0.5], [0.3, -0.2, 0.1]])
y = np.array([2, 0])


def atomic_loss(Z):
    N = Z - anp.max(Z, axis=1, keepdims=True)
    Q = anp.exp(N)
    return -anp.mean(anp.log(Q * anp.sum(Q, axis=1, keepdims=True) ** -1)[np.arange(2), y])


engine = grad(atomic_loss)(tied)
fused_tied = cross_entropy_backward_fused(tied, y)
# The hand-written chain needs only the loss-side intermediates; h and W2 are placeholders.
counts = np.exp(tied - tied.max(axis=1, keepdims=True))
tiny_cache = {"logits": tied, "h": np.zeros((2, 1)), "counts": counts,
              "counts_sum": counts.sum(axis=1, keepdims=True)}
tiny_cache["counts_sum_inv"] = tiny_cache["counts_sum"] ** -1
tiny_cache["probs"] = counts * tiny_cache["counts_sum_inv"]
hand = backward_loss_to_hpreact({"W2": np.zeros((1, 3))}, tiny_cache, y)["logits"]
assert np.allclose(engine, fused_tied, rtol=1e-12, atol=1e-15)
assert np.allclose(engine, hand, rtol=1e-12, atol=1e-15)
print(collapsible(
    "Exercise 5. Row 0 of the logits below has two equal maxima. Does the gradient depend on "
    "which one the max path picks?",
    md_table(["logits", "targets"], [[f"`{fmt_array(tied)}`".replace("\n", " "), f"`{y}`"]])
    + "\n\n"
    "`max` is not differentiable at a tie: the two candidates give different one-sided "
    "derivatives of $m_b$. `ad_core` splits the max path's cotangent equally between the winners; "
    "`argmax` in the hand-written code gives all of it to the first. The total `dlogits` is the "
    "same either way, because the cotangent arriving at the max, $-\\sum_j dN_{bj}$, is zero "
    "(up to rounding): softmax does not depend on $m_b$. `ad_core` gives "
    f"`{' '.join(fmt_array(engine).split())}`; the hand-written chain and the fused formula "
    "agree with it to `rtol=1e-12`. Other losses "
    "are not so forgiving, which is why gradient checks use random inputs without ties.",
))
