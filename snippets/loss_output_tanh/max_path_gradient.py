"""The path through the row maximum: zero for any loss of the probabilities, but part of the graph."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, load_snippet_module, text

worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
worked_example = worked.worked_example

example = worked_example()
dnorm = example.hand["norm_logits"]
dmax = example.hand["logit_maxes"]
logits = example.cache["logits"]
maxes = example.cache["logit_maxes"]
Yb = example.Yb
B, V = logits.shape
EPS = np.finfo(float).eps


def rounding_bound(terms: np.ndarray) -> float:
    """What rounding can leave of a row sum that is zero in exact arithmetic: V terms, each
    summand's error at most a few units of the largest entry."""
    return float(terms.shape[1] * EPS * np.max(np.abs(terms)))


def softmax_of_shifted(N):
    counts = anp.exp(N)
    return counts * anp.sum(counts, axis=1, keepdims=True) ** -1


def probabilities(m):
    # The chapter's steps from the row maxima on, with the maxima as the input.
    return softmax_of_shifted(logits - m)


def brier_of_shifted(N):
    """A second loss of the probabilities: squared error against the one-hot targets."""
    return anp.sum((softmax_of_shifted(N) - np.eye(V)[Yb]) ** 2) / B


def brier(m):
    return brier_of_shifted(logits - m)


def with_logit_penalty(m):
    """Cross-entropy plus a penalty that reads the shifted logits directly, not through P."""
    cross_entropy = -anp.mean(anp.log(probabilities(m))[np.arange(B), Yb])
    return cross_entropy + anp.mean((logits - m) ** 2)


dm_brier = grad(brier)(maxes)
dN_brier = grad(brier_of_shifted)(logits - maxes)
dm_penalty = grad(with_logit_penalty)(maxes)
# Closed form: the cross-entropy part is zero; d/dm of mean((Z - m)**2) is -2/(BV) sum_j N_bj.
penalty_closed_form = -2.0 / (B * V) * np.sum(logits - maxes, axis=1, keepdims=True)
top_two = np.partition(logits, V - 2, axis=1)[:, -2:]
smallest_gap = float(np.min(np.sort(logits, axis=1)[:, -1] - np.sort(logits, axis=1)[:, -2]))

print(text(
    "For this chapter's cross-entropy the largest entry of `dlogit_maxes` is {largest}, against "
    "{entry} for the largest entry of `dnorm_logits`: rounding noise, within the bound {bound} "
    "that summing {V} terms of that size can leave. Swap the loss for another function of the "
    "probabilities, the squared error "
    "$\\frac{{1}}{{B}}\\sum_{{b,j}} (P_{{bj}} - \\mathbf{{1}}[j = y_b])^2$, and "
    "`ad_core` gives a largest `dlogit_maxes` of {brier}: noise again. Add to the cross-entropy a "
    "penalty on the shifted logits themselves, $\\frac{{1}}{{BV}}\\sum_{{b,j}} N_{{bj}}^2$, and the "
    "max path carries a real gradient, largest entry {penalty}, equal to the closed form "
    "$-\\frac{{2}}{{BV}}\\sum_j N_{{bj}}$. The smallest gap between a row's largest and "
    "second-largest logit is {gap}, so every row has a single maximum and the `argmax` scatter "
    "is well defined.",
    largest=checked(float(np.max(np.abs(dmax))), against=0.0, atol=rounding_bound(dnorm),
                    shown_as=lambda v: f"{v:.1e}"),
    entry=checked(float(np.max(np.abs(dnorm))), against=float(np.max(np.abs(example.engine["norm_logits"]))),
                  rtol=1e-12, shown_as=lambda v: f"{v:.1e}"),
    bound=checked(rounding_bound(dnorm),
                  against=V * EPS * float(np.max(np.abs(example.engine["norm_logits"]))),
                  rtol=1e-12, shown_as=lambda v: f"{v:.1e}"),
    V=checked(dnorm.shape[1], against=example.params["W2"].shape[1]),
    brier=checked(float(np.max(np.abs(dm_brier))), against=0.0, atol=rounding_bound(dN_brier),
                  shown_as=lambda v: f"{v:.1e}"),
    penalty=checked(float(np.max(np.abs(dm_penalty))), against=float(np.max(np.abs(penalty_closed_form))),
                    rtol=1e-10, shown_as=lambda v: f"{v:.1e}"),
    gap=checked(smallest_gap, against=float(np.min(top_two[:, 1] - top_two[:, 0])),
                shown_as=lambda v: f"{v:.2e}"),
))
# The penalty's max path is far above rounding: deleting the path would lose a real term.
assert float(np.max(np.abs(dm_penalty))) > 1e6 * rounding_bound(dnorm)
