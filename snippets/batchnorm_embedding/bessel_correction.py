"""Which variance this book's BatchNorm divides by, and what PyTorch's BatchNorm1d does instead."""

import numpy as np

from bookkit import checked, given, load_snippet_module, text

model = load_snippet_module("snippets/network_by_hand/_model.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
BN_EPS = model.BN_EPS
worked_example = worked.worked_example

PYTORCH = "PyTorch 2.13"
LECTURE = "https://www.youtube.com/watch?v=q8SA3rM6ckI"
NOTEBOOK = ("https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/"
            "makemore_part4_backprop.ipynb")
example = worked_example()
hprebn, bnraw = example.cache["hprebn"], example.cache["bnraw"]
n = hprebn.shape[0]
# The same layer with the biased variance (divide by n), as PyTorch's BatchNorm1d normalises in
# training.
biased = (hprebn - hprebn.mean(0)) / np.sqrt(hprebn.var(0, ddof=0) + BN_EPS)
factor = float(np.median(bnraw / biased))
print(text(
    "This book's model follows Andrej Karpathy's lecture [{title}](" + LECTURE + ") "
    "([its notebook](" + NOTEBOOK + ")): "
    "in training it divides the batch variance by $n - 1$, and its running variance averages "
    "those same variances, so training and inference normalise with one estimator. {torch}'s "
    "`torch.nn.BatchNorm1d` does not: [its documentation]"
    "(https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm1d.html) says, and "
    "`tests/snippets/test_batchnorm_embedding.py` checks, that in training it normalises with "
    "the biased variance (divided by $n$) while the running variance it keeps for inference is "
    "the unbiased one, so PyTorch's layer normalises with a different variance at inference than "
    "it did in training. With $n = {n}$, dividing by $n - 1$ scales every normalised value by "
    "$\\sqrt{{(n-1)/n}} = {factor}$ relative to PyTorch's training mode. It matters twice: a "
    "backward pass must divide by what its forward pass divided by "
    "([Exercise {ex}](batchnorm-embedding.md#self-test)), "
    "and this model's gradients are not those of PyTorch's `BatchNorm1d`.",
    title=given("Building makemore Part 4: Becoming a Backprop Ninja"),
    # the version tests/snippets/test_batchnorm_embedding.py runs (it asserts the version)
    torch=given(PYTORCH),
    n=given(n),
    # up to epsilon, which is 1e-5 against variances near 2.5
    factor=checked(factor, against=float(np.sqrt((n - 1) / n)), rtol=1e-5, shown_as=lambda v: f"{v:.4f}"),
    ex=given(1),
))
