"""The new primitive in a model: softmax regression trained by gradient descent, then stressed."""

import contextlib
import io
import itertools
import warnings

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, value_and_grad
from bookkit import load_snippet_module, md_table

with contextlib.redirect_stdout(io.StringIO()):  # the primitive's own tables belong to its block
    logsumexp = load_snippet_module("snippets/extending/logsumexp_primitive.py").logsumexp

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


values = [value for _, value, _, _ in history]
assert values[0] == np.log(3)  # all logits zero: a uniform guess over 3 classes
assert all(later < earlier for earlier, later in itertools.pairwise(values))
final_accuracy = accuracy(params, features)
assert final_accuracy > 0.9
print(md_table(
    ["step", "loss", "gradient norm", "training accuracy"],
    [[step, f"{value:.4f}", f"{norm:.4f}", f"{accuracy(p, features):.0%}"]
     for step, value, norm, p in history],
))
print(
    f"\nThe loss starts at $\\ln 3$ = {values[0]:.4f} (zero weights guess uniformly) and falls at "
    f"every step; after {len(history)} steps the classifier labels {final_accuracy:.0%} of the "
    "training points correctly.\n"
)


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
step = 1e-6
central = np.array([(loss(params + step * e, scaled) - loss(params - step * e, scaled)) / (2 * step)
                    for e in np.eye(9)])
np.testing.assert_allclose(stable_gradient, central, rtol=1e-5, atol=1e-5)
overflow_threshold = float(np.log(np.finfo(np.float64).max))
largest_logit = float(np.max(np.abs(scaled @ params[:6].reshape(2, 3) + params[6:])))
assert np.exp(np.nextafter(overflow_threshold, 0)) < np.inf and largest_logit > overflow_threshold
print(md_table(
    ["loss on `features * 1000`", "value", "gradient entries that are `nan`"],
    [["naive `log(sum(exp(logits)))`", f"`{naive_value}`",
      f"{int(np.isnan(naive_gradient).sum())} of {naive_gradient.size}"],
     ["with the `logsumexp` primitive", f"`{stable_value:.3g}`",
      f"{int(np.isnan(stable_gradient).sum())} of {stable_gradient.size}"]],
))
print(
    f"\nThe trained weights turn the rescaled points into logits as large as "
    f"{largest_logit:.0f}, and `exp` overflows above {overflow_threshold:.2f}, the log of the "
    "largest float64. The stable loss stays finite, "
    "and its gradient matches central differences."
)
