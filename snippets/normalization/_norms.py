"""The three normalisation layers of "LayerNorm, RMSNorm and BatchNorm at inference": forward
passes written with `ad_core.numpy` (so the engine can differentiate them) and hand-written
backward passes in plain NumPy (so the engine can referee them).

All three take `x` of shape `(B, H)` (a batch of `B` examples with `H` features) and a gain (and
bias) of shape `(H,)`, as PyTorch 2.13's `nn.LayerNorm(H)`, `nn.RMSNorm(H)` and
`nn.BatchNorm1d(H)` do. BatchNorm here follows PyTorch's convention: the batch variance divided
by `B` in training, the unbiased one (divided by `B - 1`) in the running variance. (The model of
"BatchNorm, input layer and embedding, by hand" divides by `B - 1` in training, as Karpathy's
lecture does.)
"""

import numpy as np

import ad_core.numpy as anp

EPS = 1e-5
MOMENTUM = 0.1  # PyTorch's default: the weight of the new batch in the running estimates
BATCH_AXIS, FEATURE_AXIS = 0, 1


def layernorm(x, gain, bias, eps=EPS):
    H = x.shape[FEATURE_AXIS]
    mean = anp.sum(x, axis=FEATURE_AXIS, keepdims=True) / H  # (B, 1)
    diff = x - mean
    var = anp.sum(diff**2, axis=FEATURE_AXIS, keepdims=True) / H  # (B, 1), biased
    return gain * diff * (var + eps) ** -0.5 + bias


def rmsnorm(x, gain, eps=EPS):
    H = x.shape[FEATURE_AXIS]
    mean_square = anp.sum(x**2, axis=FEATURE_AXIS, keepdims=True) / H  # (B, 1), no mean removed
    return gain * x * (mean_square + eps) ** -0.5


def batchnorm_train(x, gain, bias, eps=EPS):
    B = x.shape[BATCH_AXIS]
    mean = anp.sum(x, axis=BATCH_AXIS, keepdims=True) / B  # (1, H)
    diff = x - mean
    var = anp.sum(diff**2, axis=BATCH_AXIS, keepdims=True) / B  # (1, H), biased, as PyTorch
    return gain * diff * (var + eps) ** -0.5 + bias


def batchnorm_eval(x, gain, bias, running_mean, running_var, eps=EPS):
    # --8<-- [start:batchnorm_eval]
    # Frozen statistics: constants, not functions of the batch.
    return gain * (x - running_mean) * (running_var + eps) ** -0.5 + bias
    # --8<-- [end:batchnorm_eval]


def running_update(running_mean, running_var, x, momentum=MOMENTUM):
    """One training step's update of the running statistics, PyTorch's convention."""
    # --8<-- [start:running_update]
    B = x.shape[0]
    batch_mean = x.mean(axis=0)
    unbiased_var = x.var(axis=0) * B / (B - 1)  # the running variance is Bessel-corrected
    running_mean = (1 - momentum) * running_mean + momentum * batch_mean
    running_var = (1 - momentum) * running_var + momentum * unbiased_var
    # --8<-- [end:running_update]
    return running_mean, running_var


def layernorm_backward(g, x, gain, eps=EPS):
    """The gradients of `sum(g * layernorm(x, gain, bias))` for x, gain and bias."""
    # --8<-- [start:layernorm_backward]
    H = x.shape[1]
    mean = x.mean(axis=1, keepdims=True)  # (B, 1): statistics over the features
    rstd = (x.var(axis=1, keepdims=True) + eps) ** -0.5  # (B, 1)
    xhat = (x - mean) * rstd  # (B, H)
    dxhat = g * gain  # (B, H): the gain varies along the reduced axis, so it goes inside the sums
    dx = rstd / H * (
        H * dxhat
        - dxhat.sum(axis=1, keepdims=True)
        - xhat * (dxhat * xhat).sum(axis=1, keepdims=True)
    )
    dgain = (g * xhat).sum(axis=0)  # (H,): the gain was broadcast over the batch
    dbias = g.sum(axis=0)  # (H,)
    # --8<-- [end:layernorm_backward]
    return dx, dgain, dbias


def layernorm_backward_gain_outside(g, x, gain, eps=EPS):
    """The tempting wrong version: BatchNorm's formula with the axis changed, the gain still
    factored out of the sums as BatchNorm's per-feature gain can be."""
    H = x.shape[1]
    rstd = (x.var(axis=1, keepdims=True) + eps) ** -0.5
    xhat = (x - x.mean(axis=1, keepdims=True)) * rstd
    # --8<-- [start:gain_outside]
    dx = gain * rstd / H * (H * g - g.sum(axis=1, keepdims=True)
                            - xhat * (g * xhat).sum(axis=1, keepdims=True))
    # --8<-- [end:gain_outside]
    return dx


def layernorm_backward_batch_axis(g, x, gain, eps=EPS):
    """The other tempting wrong version: the right formula, summed over the batch axis."""
    H = x.shape[1]
    rstd = (x.var(axis=1, keepdims=True) + eps) ** -0.5
    xhat = (x - x.mean(axis=1, keepdims=True)) * rstd
    dxhat = g * gain
    return rstd / H * (H * dxhat - dxhat.sum(axis=0, keepdims=True)
                       - xhat * (dxhat * xhat).sum(axis=0, keepdims=True))


def rmsnorm_backward(g, x, gain, eps=EPS):
    """The gradients of `sum(g * rmsnorm(x, gain))` for x and gain (RMSNorm has no bias)."""
    # --8<-- [start:rmsnorm_backward]
    H = x.shape[1]
    rrms = ((x**2).mean(axis=1, keepdims=True) + eps) ** -0.5  # (B, 1)
    xhat = x * rrms  # (B, H)
    dxhat = g * gain
    dx = rrms / H * (H * dxhat - xhat * (dxhat * xhat).sum(axis=1, keepdims=True))
    dgain = (g * xhat).sum(axis=0)  # (H,)
    # --8<-- [end:rmsnorm_backward]
    return dx, dgain


def batchnorm_eval_backward(g, gain, running_var, eps=EPS):
    """The input gradient at inference: one scale per feature, nothing summed over the batch."""
    # --8<-- [start:batchnorm_eval_backward]
    dx = g * gain * (running_var + eps) ** -0.5
    # --8<-- [end:batchnorm_eval_backward]
    return dx


def random_inputs(rng: np.random.Generator, B: int, H: int) -> dict:
    """float64 inputs away from the special values: gain not one, bias not zero, rows and
    columns with means and spreads of their own."""
    return {
        "x": rng.standard_normal((B, H)) * rng.uniform(0.5, 2.0, (B, 1)) + rng.standard_normal((B, 1)),
        "gain": 1.0 + 0.3 * rng.standard_normal(H),
        "bias": 0.2 * rng.standard_normal(H),
        "g": rng.standard_normal((B, H)),  # the upstream gradient dL/dy
    }


def coupling_counts(jac: np.ndarray, tol: float) -> tuple[int, int]:
    """From a Jacobian of shape (B, H, B, H) (output index, then input index): how many of the
    B (B - 1) off-diagonal batch blocks d y[i, :] / d x[k, :], i != k, hold an entry above `tol`,
    and how many off-diagonal entries of the diagonal blocks (one feature's output against
    another feature's input of the same example) do."""
    B, H = jac.shape[:2]
    blocks = np.abs(jac).max(axis=(1, 3))  # (B, B): the largest entry of each block
    batch = int(np.sum(blocks[~np.eye(B, dtype=bool)] > tol))
    within = np.abs(np.stack([jac[i, :, i, :] for i in range(B)]))  # (B, H, H)
    features = int(np.sum(within[:, ~np.eye(H, dtype=bool)] > tol))
    return batch, features


def central_difference_jacobian(f, x: np.ndarray, step: float = 1e-6) -> np.ndarray:
    """The Jacobian of f at x by central differences, one input entry at a time, in the
    layout of `ad_core.jacobian` (output shape, then input shape)."""
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for index in np.ndindex(x.shape):
        bump = np.zeros_like(x)
        bump[index] = step
        jac[(..., *index)] = (np.asarray(f(x + bump)) - np.asarray(f(x - bump))) / (2 * step)
    return jac
