"""The makemore MLP step in PyTorch eager mode, float64, one op for one op of mlp_model.loss.

Same graph as the NumPy-style model (max-subtraction, exp, sum, log; mean and Bessel-corrected
var), not F.cross_entropy / F.batch_norm, so the column measures engine overhead on the same
work rather than PyTorch's fused kernels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from mlp_model import BN_EPS


def make_step(
    params: list[np.ndarray], windows: np.ndarray, targets: np.ndarray
) -> Callable[[], tuple[float, list[np.ndarray]]]:
    """Return step() -> (loss, gradients as NumPy arrays in PARAM_NAMES order)."""
    leaves = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params]
    windows_t = torch.as_tensor(windows, dtype=torch.long)
    targets_t = torch.as_tensor(targets, dtype=torch.long)
    batch_size = windows.shape[0]
    rows = torch.arange(batch_size)

    def step() -> tuple[float, list[np.ndarray]]:
        embedding, w1, bngain, bnbias, w2, b2 = leaves
        for leaf in leaves:
            leaf.grad = None
        embcat = embedding[windows_t].reshape(batch_size, -1)
        hprebn = embcat @ w1
        bnmean = hprebn.mean(dim=0, keepdim=True)
        bnvar = hprebn.var(dim=0, correction=1, keepdim=True)
        hpreact = bngain * (hprebn - bnmean) / torch.sqrt(bnvar + BN_EPS) + bnbias
        h = torch.tanh(hpreact)
        logits = h @ w2 + b2
        shifted = logits - logits.max(dim=1, keepdim=True).values
        logprobs = shifted - torch.log(torch.exp(shifted).sum(dim=1, keepdim=True))
        loss = -logprobs[rows, targets_t].mean()
        loss.backward()
        # .numpy() shares memory, so handing gradients back costs no copy.
        return loss.item(), [leaf.grad.numpy() for leaf in leaves]

    return step
