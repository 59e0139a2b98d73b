"""A 1-D convolution, max pooling and average pooling built from engine primitives, and their
backward passes by hand. Hidden helper for the convolution chapter.

"Convolution" means what deep-learning libraries compute: a cross-correlation, y[i] = Σ_k x[i+k] w[k],
over the "valid" windows (no padding), stride one unless given.
"""

import numpy as np

import ad_core.numpy as anp


# --8<-- [start:im2col]
def window_index(length: int, width: int, stride: int = 1) -> np.ndarray:
    """Row i holds the input positions of window i: i*stride, ..., i*stride + width - 1."""
    starts = np.arange(0, length - width + 1, stride)
    return starts[:, None] + np.arange(width)[None, :]  # (windows, width)


def im2col(x, width: int, stride: int = 1):
    return x[window_index(x.shape[-1], width, stride)]  # a gather: (windows, width)


def conv1d(x, w, stride: int = 1):
    return anp.matmul(im2col(x, w.shape[-1], stride), w)  # (windows,)


# --8<-- [end:im2col]


# --8<-- [start:backward]
def conv1d_input_grad(dy, w):
    """A full correlation of dy with the flipped kernel: a transposed convolution."""
    width = w.shape[-1]
    padded = np.pad(dy, (width - 1, width - 1))
    return np.correlate(padded, w[::-1], mode="valid")  # (len(dy) + width - 1,) = x's shape


def conv1d_kernel_grad(x, dy):
    """A correlation of the input with the output gradient."""
    return np.correlate(x, dy, mode="valid")  # (len(x) - len(dy) + 1,) = w's shape


# --8<-- [end:backward]


# --8<-- [start:pooling]
def max_pool(x, width: int, stride: int):
    return anp.max(im2col(x, width, stride), axis=-1)


def max_pool_as_gather(x, width: int, stride: int):
    """The maximum as an index: the first position of each window's largest entry."""
    windows = window_index(x.shape[-1], width, stride)
    winners = windows[np.arange(len(windows)), np.argmax(np.asarray(x)[windows], axis=-1)]
    return x[winners], winners


def max_pool_input_grad(x, dy, width: int, stride: int):
    _, winners = max_pool_as_gather(x, width, stride)
    dx = np.zeros_like(x)
    np.add.at(dx, winners, dy)  # a scatter-add: overlapping windows can pick the same winner
    return dx


def avg_pool(x, width: int, stride: int):
    return anp.mean(im2col(x, width, stride), axis=-1)


def avg_pool_input_grad(x, dy, width: int, stride: int):
    dx = np.zeros_like(x)
    np.add.at(
        dx, window_index(x.shape[-1], width, stride), np.broadcast_to(dy[:, None] / width, (len(dy), width))
    )
    return dx


# --8<-- [end:pooling]
