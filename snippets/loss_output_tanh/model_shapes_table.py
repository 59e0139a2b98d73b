"""Every parameter and every kept intermediate of the forward pass, with its shape."""

import numpy as np

from bookkit import fmt_shape, md_table
from bookkit.mlp_by_hand import (
    BATCH_SIZE,
    INTERMEDIATE_NAMES,
    PARAM_NAMES,
    VOCAB_SIZE,
    worked_example,
)

example = worked_example()
params, cache = example.params, example.cache

# Where each intermediate comes from, in the notation of the math section.
MEANING = {
    "emb": "`C[Xb]`: one 10-vector per context character",
    "embcat": "the three vectors side by side",
    "hprebn": "$XW_1 + b_1$, before BatchNorm",
    "bnmeani": "batch mean $\\mu$",
    "bndiff": "$x - \\mu$",
    "bndiff2": "$(x - \\mu)^2$",
    "bnvar": "batch variance, divided by $n-1$",
    "bnvar_inv": "$(\\sigma^2 + \\epsilon)^{-1/2}$",
    "bnraw": "normalised $\\hat x$",
    "hpreact": "$\\gamma \\hat x + \\beta$",
    "h": "$\\tanh$",
    "logits": "$Z = hW_2 + b_2$",
    "logit_maxes": "$m$: row maxima",
    "norm_logits": "$N = Z - m$",
    "counts": "$Q = e^N$",
    "counts_sum": "$s$: row sums",
    "counts_sum_inv": "$r = s^{-1}$",
    "probs": "$P = Q r$",
    "logprobs": "$R = \\log P$",
}

rows = [[f"`{name}`", "parameter", f"`{fmt_shape(params[name].shape)}`", ""] for name in PARAM_NAMES]
rows += [
    [f"`{name}`", "intermediate", f"`{fmt_shape(cache[name].shape)}`", MEANING[name]]
    for name in INTERMEDIATE_NAMES
]
rows.append(["`loss`", "output", f"`{fmt_shape(np.shape(cache['loss']))}`", "$L$"])
assert cache["logits"].shape == (BATCH_SIZE, VOCAB_SIZE)
assert set(MEANING) == set(INTERMEDIATE_NAMES)
B, V = cache["logits"].shape
H = cache["h"].shape[1]
print(
    f"Here $B = {B}$ is the minibatch size (examples per gradient step), $V = {V}$ the vocabulary, "
    f"$H = {H}$ the hidden width, and each context has {example.Xb.shape[1]} characters embedded "
    f"in {params['C'].shape[1]} dimensions."
)
print()
print(md_table(["name", "kind", "shape", "what it is"], rows))
print()

parameter_count = sum(params[name].size for name in PARAM_NAMES)
uniform_loss = np.log(VOCAB_SIZE)
# Small output weights make the first predictions nearly uniform, so the loss starts near log 27.
assert abs(cache["loss"] - uniform_loss) < 0.2
print(
    f"The model has {parameter_count} parameters. At the initial values the loss of the "
    f"chapter's minibatch is {cache['loss']:.4f}, close to $\\log {VOCAB_SIZE} = "
    f"{uniform_loss:.4f}$, the loss of a uniform guess: the small output weights keep the "
    "first predictions nearly uniform."
)
