"""Every parameter and every kept intermediate of the forward pass, with its shape."""

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

model = load_snippet_module("snippets/network_by_hand/_model.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
training = load_snippet_module("snippets/network_by_hand/_training.py")
ALPHABET = model.ALPHABET
BATCH_SIZE = model.BATCH_SIZE
BLOCK_SIZE = model.BLOCK_SIZE
INTERMEDIATE_NAMES = model.INTERMEDIATE_NAMES
N_EMBD = model.N_EMBD
N_HIDDEN = model.N_HIDDEN
PARAM_NAMES = model.PARAM_NAMES
VOCAB_SIZE = model.VOCAB_SIZE
worked_example = worked.worked_example
cross_entropy = training.cross_entropy

example = worked_example()
params, cache = example.params, example.cache

# Where each intermediate comes from, in the notation of the math section.
MEANING = {
    "emb": "`C[Xb]`: one embedding row per context character",
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

B, V, H = BATCH_SIZE, len(ALPHABET), N_HIDDEN
# The shape each tensor must have, from the model's sizes (not from the arrays).
EXPECTED = {
    "C": (V, N_EMBD), "W1": (BLOCK_SIZE * N_EMBD, H), "b1": (H,), "bngain": (1, H),
    "bnbias": (1, H), "W2": (H, V), "b2": (V,),
    "emb": (B, BLOCK_SIZE, N_EMBD), "embcat": (B, BLOCK_SIZE * N_EMBD),
    **{name: (B, H) for name in ("hprebn", "bndiff", "bndiff2", "bnraw", "hpreact", "h")},
    **{name: (1, H) for name in ("bnmeani", "bnvar", "bnvar_inv")},
    **{name: (B, V) for name in ("logits", "norm_logits", "counts", "probs", "logprobs")},
    **{name: (B, 1) for name in ("logit_maxes", "counts_sum", "counts_sum_inv")},
    "loss": (),
}
rows = [[f"`{name}`", "parameter", checked(params[name].shape, against=EXPECTED[name]), ""]
        for name in PARAM_NAMES]
rows += [
    [f"`{name}`", "intermediate", checked(cache[name].shape, against=EXPECTED[name]), MEANING[name]]
    for name in INTERMEDIATE_NAMES
]
# (compared as text: `checked` takes the empty shape, one shared object, for a self-comparison)
rows.append(["`loss`", "output", checked(str(np.shape(cache["loss"])), against=str(EXPECTED["loss"]),
                                         shown_as=lambda v: f"`{v}`"), "$L$"])
assert set(MEANING) == set(INTERMEDIATE_NAMES)
print(text(
    "Here $B = {B}$ is the minibatch size (examples per gradient step), $V = {V}$ the "
    "vocabulary, $H = {H}$ the hidden width, and each context has {k} characters embedded in "
    "{E} dimensions.",
    B=checked(cache["logits"].shape[0], against=BATCH_SIZE),
    V=checked(cache["logits"].shape[1], against=VOCAB_SIZE),
    H=checked(cache["h"].shape[1], against=N_HIDDEN),
    k=checked(example.Xb.shape[1], against=BLOCK_SIZE),
    E=checked(params["C"].shape[1], against=N_EMBD),
))
print()
print(md_table(["name", "kind", "shape", "what it is"], rows))
print()

parameter_count = sum(params[name].size for name in PARAM_NAMES)
counted = int(np.prod(EXPECTED["C"]) + np.prod(EXPECTED["W1"]) + H + 2 * H + np.prod(EXPECTED["W2"]) + V)
uniform_loss = np.log(VOCAB_SIZE)
# The uniform guess's loss, computed as the cross-entropy of all-zero logits.
zero_logits_loss = float(-np.mean(np.log(np.full(VOCAB_SIZE, 1.0 / VOCAB_SIZE))))
logits_spread = float(np.std(cache["logits"] - cache["logits"].mean(axis=1, keepdims=True)))
print(text(
    "The model has {count} parameters. At the initial values the loss of the chapter's "
    "minibatch is {loss}, near $\\log {V} = {uniform}$, the loss of a uniform guess: the small "
    "output weights give the initial logits a standard deviation of only {spread} around their "
    "row mean, so the first predictions are nearly uniform.",
    count=checked(parameter_count, against=counted),
    # the atomic chain against log-sum-exp; within 0.2 of the uniform loss
    loss=checked(float(cache["loss"]), against=cross_entropy(cache["logits"], example.Yb), rtol=1e-12,
                 shown_as=lambda v: f"{v:.4f}"),
    V=given(VOCAB_SIZE),
    uniform=checked(uniform_loss, against=zero_logits_loss, rtol=1e-15, shown_as=lambda v: f"{v:.4f}"),
    spread=checked(logits_spread, against=float(np.sqrt(np.mean(np.var(cache["logits"], axis=1)))),
                   rtol=1e-12, shown_as=lambda v: f"{v:.2f}"),
))
assert abs(cache["loss"] - uniform_loss) < 0.2
