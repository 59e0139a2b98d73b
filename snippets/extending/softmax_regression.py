"""The new primitive in a model: softmax regression trained by gradient descent, then stressed."""

import contextlib
import io
import itertools
import math
import sys
import warnings
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, value_and_grad
from bookkit import checked, given, load_snippet_module, md_table, text

with contextlib.redirect_stdout(io.StringIO()):  # the primitive's own tables belong to its block
    logsumexp = load_snippet_module(Path(__file__).with_name("logsumexp_primitive.py")).logsumexp

rng = np.random.default_rng(111)
centers = np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]])
labels = np.repeat(np.arange(3), 20)
features = centers[labels] + 0.8 * rng.standard_normal((60, 2))
one_hot = np.eye(3)[labels]


# --8<-- [start:model]
def loss(params, features):
    """Mean cross-entropy of a linear classifier: logits of shape (60, 3)."""
    weights, bias = params[:6].reshape(2, 3), params[6:]
    logits = features @ weights + bias
    return anp.mean(logsumexp(logits) - anp.sum(one_hot * logits, axis=1))


params = np.zeros(9)  # weights (2, 3) and bias (3,), flattened into one vector
learning_rate = 0.5
history = []
for step in range(8):
    value, gradient = value_and_grad(loss)(params, features)
    history.append((step, value, np.linalg.norm(gradient), params.copy()))
    params = params - learning_rate * gradient
# --8<-- [end:model]


def accuracy(params, features):
    logits = features @ params[:6].reshape(2, 3) + params[6:]
    return float(np.mean(np.argmax(logits, axis=1) == labels))


def numpy_loss_and_gradient(params, features):
    """The same loss and its gradient by hand in NumPy: logaddexp for the normalizer, and
    (softmax - one_hot) / n pushed back through the affine map."""
    weights, bias = params[:6].reshape(2, 3), params[6:]
    logits = features @ weights + bias
    normalizer = np.logaddexp.reduce(logits, axis=1)
    value = np.mean(normalizer - logits[np.arange(len(labels)), labels])
    dlogits = (np.exp(logits - normalizer[:, None]) - one_hot) / len(labels)
    return value, np.concatenate([(features.T @ dlogits).ravel(), dlogits.sum(axis=0)])


def share_correct(params, features):
    """Accuracy counted another way: the true class's logit beats every earlier class and ties
    at most with later ones (argmax takes the first of equal logits)."""
    logits = features @ params[:6].reshape(2, 3) + params[6:]
    right = [all(row[y] > row[k] for k in range(y)) and all(row[y] >= row[k] for k in range(y + 1, len(row)))
             for row, y in zip(logits, labels, strict=True)]
    return sum(right) / len(right)


values = [value for _, value, _, _ in history]
assert all(later < earlier for earlier, later in itertools.pairwise(values))
final_accuracy = accuracy(params, features)
assert final_accuracy > 0.9
table = []
for step, value, norm, p in history:
    reference_value, reference_gradient = numpy_loss_and_gradient(p, features)
    table.append([
        given(step),
        checked(value, against=reference_value, rtol=1e-13, shown_as=lambda v: f"{v:.4f}"),
        checked(norm, against=np.linalg.norm(reference_gradient), rtol=1e-12, shown_as=lambda v: f"{v:.4f}"),
        checked(accuracy(p, features), against=share_correct(p, features), shown_as=lambda a: f"{a:.0%}"),
    ])
print(md_table(["step", "loss", "gradient norm", "training accuracy"], table))
print(text(
    "\nThe loss starts at $\\ln 3$ = {start:.4f} (zero weights guess uniformly) and falls at "
    "every step; after {steps} steps the classifier labels {accuracy:.0%} of the training "
    "points correctly.\n",
    start=checked(values[0], against=math.log(3)),  # all logits zero: a uniform guess over 3 classes
    steps=given(len(history)),
    accuracy=checked(final_accuracy, against=share_correct(params, features)),
))


# --8<-- [start:stress]
def naive_loss(params, features):
    weights, bias = params[:6].reshape(2, 3), params[6:]
    logits = features @ weights + bias
    log_normalizer = anp.log(anp.sum(anp.exp(logits), axis=1))  # the textbook formula
    return anp.mean(log_normalizer - anp.sum(one_hot * logits, axis=1))


scaled = features * 1000.0  # the same points, measured in a unit 1000 times smaller
# --8<-- [end:stress]

with warnings.catch_warnings(), np.errstate(all="ignore"):
    warnings.simplefilter("ignore")  # overflow is what this experiment shows
    naive_value = naive_loss(params, scaled)
    naive_gradient = grad(naive_loss)(params, scaled)
stable_value = loss(params, scaled)
stable_gradient = grad(loss)(params, scaled)
assert not np.isfinite(naive_value) and np.isnan(naive_gradient).any()
assert np.isfinite(stable_value) and np.all(np.isfinite(stable_gradient))
# The gradient's entries are tiny (the trained model is sure of every rescaled point), far below
# what central differences resolve: they return exact zeros, and an absolute tolerance would
# accept any tiny gradient, even one of the wrong sign. Compare entry by entry, relatively, with
# the gradient written by hand in NumPy.
step = 1e-6
central = np.array([(loss(params + step * e, scaled) - loss(params - step * e, scaled)) / (2 * step)
                    for e in np.eye(9)])
assert not central.any()
_, reference_gradient = numpy_loss_and_gradient(params, scaled)
relative = 1e-9
np.testing.assert_allclose(stable_gradient, reference_gradient, rtol=relative, atol=0)
overflow_threshold = float(np.log(np.finfo(np.float64).max))
largest_logit = float(np.max(np.abs(scaled @ params[:6].reshape(2, 3) + params[6:])))
assert np.exp(np.nextafter(overflow_threshold, 0)) < np.inf and largest_logit > overflow_threshold
reference_value, _ = numpy_loss_and_gradient(params, scaled)
print(md_table(
    ["loss on `features * 1000`", "value", "gradient entries that are NaN"],
    [["naive `log(sum(exp(logits)))`",
      # some logit is above the overflow threshold, so some exp is inf, and so is the mean
      checked(naive_value, against=np.inf if largest_logit > overflow_threshold else reference_value,
              shown_as=lambda v: f"`{v}`"),
      checked(int(np.isnan(naive_gradient).sum()), against=naive_gradient.size,
              shown_as=lambda k: f"{k} of {naive_gradient.size}")],
     ["with the `logsumexp` primitive",
      checked(stable_value, against=reference_value, rtol=1e-12, shown_as=lambda v: f"`{v:.3g}`"),
      checked(int(np.isnan(stable_gradient).sum()), against=0,
              shown_as=lambda k: f"{k} of {stable_gradient.size}")]],
))
print(text(
    "\nThe trained weights turn the rescaled points into logits as large as {largest:.0f}, and "
    "`exp` overflows above {threshold:.2f}, the log of the largest float64. The stable loss "
    "stays finite, and so does its gradient, whose largest entry is {largest_entry:.1e}: too "
    "small for central differences, which return {central_zeros} zeros out of {size}, so it is "
    "compared, entry by entry and with relative tolerance {relative:.0e}, with the gradient "
    "`(softmax - one_hot) / n` written by hand in NumPy.",
    largest_entry=checked(float(np.max(np.abs(stable_gradient))),
                          against=float(np.max(np.abs(reference_gradient))), rtol=relative),
    central_zeros=checked(int(np.sum(central == 0)), against=central.size),
    size=given(stable_gradient.size),
    relative=given(relative),
    largest=checked(largest_logit, against=float(np.max(np.abs(1000.0 * (features @ params[:6].reshape(2, 3))
                                                             + params[6:]))), rtol=1e-12),
    threshold=checked(overflow_threshold, against=math.log(sys.float_info.max), rtol=1e-15),
))
