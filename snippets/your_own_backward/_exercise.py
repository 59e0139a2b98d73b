"""Your own backward pass for the Part III network: fill in every cell marked ``...``.

The forward pass is `forward` in ``snippets/network_by_hand/_model.py`` (its ``forward`` section is
on the page "Your own backward pass"); `backward` receives its intermediates in ``cache``. Replace
each ``...`` by the gradient of the loss with respect to that tensor, with that tensor's shape,
then check the file from the repository's root:

    python -m snippets.your_own_backward._check_backward path/to/this_file.py

For each name in ``GRADIENTS`` the checker compares your ``d<name>`` with ``ad_core``'s gradient,
in order; other locals are yours to use. A cell left as ``...`` is reported as not filled in; a
misspelt cell name leaves the real one unassigned (reported missing) or still ``...`` (not filled
in). Either way it fails. An error stops the check at its line with the cells before it compared.
"""

import numpy as np  # noqa: F401 (your cells will need it)

BN_EPS = 1e-5  # the forward pass's BatchNorm epsilon
# The gradients `backward` returns, one cell d<name> each; other locals (a scratch `dtmp`) are not.
GRADIENTS = (
    "logprobs", "probs", "counts_sum_inv", "counts_sum", "counts", "norm_logits", "logit_maxes",
    "logits", "h", "W2", "b2", "hpreact", "bngain", "bnbias", "bnraw", "bnvar_inv", "bnvar",
    "bndiff2", "bndiff", "bnmeani", "hprebn", "embcat", "W1", "b1", "emb", "C",
)


def backward(params, cache, Xb, Yb):
    C, W1, bngain, W2 = params["C"], params["W1"], params["bngain"], params["W2"]
    emb, embcat, bndiff, bndiff2 = cache["emb"], cache["embcat"], cache["bndiff"], cache["bndiff2"]
    bnvar, bnvar_inv, bnraw, h = cache["bnvar"], cache["bnvar_inv"], cache["bnraw"], cache["h"]
    logits, counts, counts_sum = cache["logits"], cache["counts"], cache["counts_sum"]
    counts_sum_inv, probs = cache["counts_sum_inv"], cache["probs"]
    n = Xb.shape[0]
    # --8<-- [start:cells]
    # cross-entropy: loss = -mean(logprobs[range(n), Yb])
    dlogprobs = ...  # (32, 27)
    dprobs = ...  # (32, 27)
    dcounts_sum_inv = ...  # (32, 1)
    dcounts = ...  # (32, 27): counts is used twice
    dcounts_sum = ...  # (32, 1)
    dnorm_logits = ...  # (32, 27)
    dlogit_maxes = ...  # (32, 1)
    dlogits = ...  # (32, 27): logits is used twice
    # output layer and tanh
    dh = ...  # (32, 64)
    dW2 = ...  # (64, 27)
    db2 = ...  # (27,)
    dhpreact = ...  # (32, 64)
    # BatchNorm (the variance divides by n - 1)
    dbngain = ...  # (1, 64)
    dbnbias = ...  # (1, 64)
    dbnraw = ...  # (32, 64)
    dbnvar_inv = ...  # (1, 64)
    dbnvar = ...  # (1, 64)
    dbndiff2 = ...  # (32, 64)
    dbndiff = ...  # (32, 64): bndiff is used twice
    dbnmeani = ...  # (1, 64)
    dhprebn = ...  # (32, 64): hprebn is used twice
    # input layer and embedding
    dembcat = ...  # (32, 30)
    dW1 = ...  # (30, 64)
    db1 = ...  # (64,)
    demb = ...  # (32, 3, 10)
    dC = ...  # (27, 10)
    # --8<-- [end:cells]
    cells = locals()
    return {name: cells[f"d{name}"] for name in GRADIENTS if f"d{name}" in cells}
