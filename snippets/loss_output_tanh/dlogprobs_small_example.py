"""The first backward step: dR is zero except -1/B at each row's target (B=2, V=3, y=[2, 0])."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, checked, given, latex_matrix, text

y = np.array([2, 0])
B, V = 2, 3
R = np.log(np.random.default_rng(3).dirichlet(np.ones(V), size=B))   # any log-probabilities

# --8<-- [start:dR]
dR = np.zeros((B, V))
dR[np.arange(B), y] = -1.0 / B       # the mean divides by B; the minus sign comes from -log
# --8<-- [end:dR]


def loss_of_logprobs(R):
    return -anp.mean(R[np.arange(B), y])


dR_engine = grad(loss_of_logprobs)(R)
assert_shape_then_close(dR_engine, dR)
assert np.count_nonzero(dR) == B and np.all(dR[np.arange(B), y] == -0.5)
# Closed form: -1/B at (b, y_b), zero elsewhere, built from the one-hot rows.
closed_form = -np.eye(V)[y] / B
print(text(
    "$$\ndR = {dR} \\quad (B = {B},\\ V = {V},\\ y = {y})\n$$",
    dR=latex_matrix(checked(dR, against=closed_form), precision=2),
    B=given(B),
    V=given(V),
    y=given(y.tolist(), shown_as=str),
))
print()
print(
    "`ad_core` returns the same matrix for $L = -\\tfrac{1}{B}\\sum_b R_{b, y_b}$, whatever the "
    "values of $R$: the first step of the backward pass does not look at them."
)
