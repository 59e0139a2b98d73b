"""The built chapter "Convolution and pooling": the hand-written VJPs against PyTorch 2.13's
conv1d, conv2d, max_pool1d and avg_pool1d, the tie rules the page states, and the page's counts
recomputed from the snippet modules."""

from __future__ import annotations

import numpy as np
import pytest

from bookkit import load_snippet_module
from bookkit.testing import assert_table_row

conv = load_snippet_module("snippets/convolution/_convolution.py")


def as_torch(torch, array, grad=True):
    """A (1, 1, ...) float64 tensor: batch and channel axes of one, as PyTorch's layers expect."""
    return torch.tensor(np.asarray(array)[None, None], dtype=torch.float64, requires_grad=grad)


def test_hand_gradients_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13")
    functional = torch.nn.functional
    rng = np.random.default_rng(8)
    x, w = rng.normal(size=11), rng.normal(size=4)
    dy = rng.normal(size=8)
    tx, tw = as_torch(torch, x), as_torch(torch, w)
    out = functional.conv1d(tx, tw)
    np.testing.assert_allclose(out.detach().numpy()[0, 0], np.correlate(x, w, mode="valid"), rtol=1e-12)
    out.backward(torch.tensor(dy[None, None]))
    np.testing.assert_allclose(tx.grad.numpy()[0, 0], conv.conv1d_input_grad(dy, w), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tw.grad.numpy()[0, 0], conv.conv1d_kernel_grad(x, dy), rtol=1e-12, atol=1e-14)
    # The unflipped kernel is wrong against PyTorch too: the comparison can fail.
    unflipped = np.correlate(np.pad(dy, 3), w, mode="valid")
    assert not np.allclose(tx.grad.numpy()[0, 0], unflipped)

    pool, stride = 3, 2
    dpool = rng.normal(size=len(conv.window_index(len(x), pool, stride)))
    for layer, hand in (
        (functional.max_pool1d, conv.max_pool_input_grad),
        (functional.avg_pool1d, conv.avg_pool_input_grad),
    ):
        tx = as_torch(torch, x)
        layer(tx, pool, stride=stride).backward(torch.tensor(dpool[None, None]))
        np.testing.assert_allclose(
            tx.grad.numpy()[0, 0], hand(x, dpool, pool, stride), rtol=1e-12, atol=1e-15
        )


def test_conv2d_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    exercises = load_snippet_module("snippets/convolution/exercises.py")
    image, kernel, dY = exercises.image, exercises.kernel, exercises.dY
    timage, tkernel = as_torch(torch, image), as_torch(torch, kernel, grad=False)
    torch.nn.functional.conv2d(timage, tkernel).backward(torch.tensor(dY[None, None]))
    np.testing.assert_allclose(timage.grad.numpy()[0, 0], exercises.flipped, rtol=1e-12, atol=1e-14)


def test_max_pool_ties_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    ties = load_snippet_module("snippets/convolution/pooling_ties.py")
    tx = as_torch(torch, ties.x)
    torch.nn.functional.max_pool1d(tx, ties.pool, stride=ties.stride).backward(
        torch.tensor(ties.dy[None, None])
    )
    np.testing.assert_array_equal(tx.grad.numpy()[0, 0], ties.gather_dx)  # the first winner
    assert not np.array_equal(tx.grad.numpy()[0, 0], ties.engine_dx)
    # torch.amax over the same windows shares the gradient among the winners, like ad_core.
    x = torch.tensor(ties.x, requires_grad=True)
    windows = x[torch.tensor(conv.window_index(len(ties.x), ties.pool, ties.stride))]
    torch.amax(windows, dim=-1).backward(torch.tensor(ties.dy))
    np.testing.assert_array_equal(x.grad.numpy(), ties.engine_dx)


def test_page_shows_the_adds_per_position(text: str) -> None:
    """Each row of the adds table is the number of windows covering that position, recounted
    here from the window starts by arithmetic (not by the snippet's loop)."""
    counts = load_snippet_module("snippets/convolution/scatter_add_counts.py")
    length, width = counts.length, counts.width
    for j in range(length):
        covering = []
        for stride in counts.strides:
            last_start = (length - width) // stride * stride
            low, high = max(0, j - width + 1), min(j, last_start)  # starts whose window holds j
            covering.append(0 if high < low else high // stride - (low + stride - 1) // stride + 1)
        assert_table_row(text, str(j), *(str(c) for c in covering))
