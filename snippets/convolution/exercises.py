"""Self-test for the convolution chapter: every answer computed and checked here."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import (
    assert_shape_then_close,
    central_differences,
    checked,
    collapsible,
    given,
    load_snippet_module,
    text,
)

conv = load_snippet_module(Path(__file__).with_name("_convolution.py"))
rng = np.random.default_rng(41)

# Exercise 1: stride two. The input gradient is a transposed convolution of the dilated dy.
length, width, stride = 12, 3, 2
x, w = rng.normal(size=length), rng.normal(size=width)
outputs = len(conv.window_index(length, width, stride))
dy = rng.normal(size=outputs)
engine_dx = make_vjp(lambda a: conv.conv1d(a, w, stride))(x)[0](dy)
dilated = np.zeros(stride * (outputs - 1) + 1)
dilated[::stride] = dy
by_dilation = conv.conv1d_input_grad(dilated, w)
by_dilation = np.pad(by_dilation, (0, length - len(by_dilation)))  # positions no window reads
assert_shape_then_close(engine_dx, by_dilation, rtol=1e-12, atol=1e-15)

print(
    collapsible(
        text(
            "Exercise {number}. A convolution with stride {s}: $y_i = \\sum_k x_{{{s}i+k}} w_k$. "
            "Write $\\bar x$ as a transposed convolution.",
            number=given(1),
            s=given(stride),
        ),
        text(
            "$\\bar x_j = \\sum_i \\bar y_i\\, w_{{j - {s}i}}\\, [\\,0 \\le j - {s}i < K\\,]$: "
            "the stride-one formula applied to "
            "$\\bar y$ with {gaps} zero between neighbours (dilated). So insert the zeros, then "
            "correlate the padded result with the flipped kernel, as at stride one. That gives "
            "{reached} of the {N} positions; the rest are read by no window and get zero. The engine's "
            "VJP of the strided im2col convolution equals it.",
            s=given(stride),
            gaps=given(stride - 1),
            N=given(length),
            reached=checked(
                len(conv.conv1d_input_grad(dilated, w)),
                against=int(conv.window_index(length, width, stride).max()) + 1,
            ),
        ),
    )
)

# Exercise 2: average pooling over windows that tile the input.
pool = 3
x2 = rng.normal(size=4 * pool + 1)  # one position left over
dy2 = rng.normal(size=len(conv.window_index(len(x2), pool, pool)))
engine_pool = make_vjp(lambda a: conv.avg_pool(a, pool, pool))(x2)[0](dy2)
leftover_count = len(x2) - pool * len(dy2)  # positions after the last whole window
broadcast = np.pad(np.repeat(dy2 / pool, pool), (0, leftover_count))
assert_shape_then_close(engine_pool, broadcast, rtol=1e-12, atol=1e-15)

print(
    collapsible(
        text(
            "Exercise {number}. Average pooling with windows of {k} at stride {k} over {N} inputs. "
            "What is $\\bar x$, in NumPy?",
            number=given(2),
            k=given(pool),
            N=given(len(x2)),
        ),
        text(
            "Each window's mean copies $\\bar y_i / {k}$ to each of its entries, and the windows do not "
            "overlap, so nothing adds: a broadcast, `np.repeat(dy / {k}, {k})`. The input has one "
            "position no window reads; its gradient is {leftover}, so pad with zeros to {shape}: "
            "`np.pad(np.repeat(dy / {k}, {k}), (0, {pad}))`. The engine gives the same.",
            k=given(pool),
            leftover=checked(float(engine_pool[-1]), against=0.0),
            pad=checked(
                leftover_count, against=len(x2) - 1 - int(conv.window_index(len(x2), pool, pool).max())
            ),
            shape=checked(engine_pool.shape, against=x2.shape),
        ),
    )
)

# Exercise 3: a two-dimensional convolution; the input gradient flips the kernel in both axes.
rows, cols, kh, kw = 5, 6, 2, 3
image, kernel = rng.normal(size=(rows, cols)), rng.normal(size=(kh, kw))
out_shape = (rows - kh + 1, cols - kw + 1)
dY = rng.normal(size=out_shape)


def conv2d(a, k):
    """im2col in two dimensions: gather every (kh, kw) patch as a row, then one matmul."""
    r = np.arange(out_shape[0])[:, None, None, None] + np.arange(kh)[None, None, :, None]
    c = np.arange(out_shape[1])[None, :, None, None] + np.arange(kw)[None, None, None, :]
    patches = a[r, c]  # (out rows, out cols, kh, kw)
    return anp.sum(patches * k, axis=(-1, -2))


def correlate2d_valid(a, k):
    return np.array(
        [
            [
                np.sum(a[i : i + k.shape[0], j : j + k.shape[1]] * k)
                for j in range(a.shape[1] - k.shape[1] + 1)
            ]
            for i in range(a.shape[0] - k.shape[0] + 1)
        ]
    )


engine_dimage = make_vjp(lambda a: conv2d(a, kernel))(image)[0](dY)
flipped = correlate2d_valid(np.pad(dY, ((kh - 1, kh - 1), (kw - 1, kw - 1))), kernel[::-1, ::-1])
assert_shape_then_close(engine_dimage, flipped, rtol=1e-12, atol=1e-14)
assert_shape_then_close(
    engine_dimage,
    central_differences(lambda a: float(np.sum(dY * correlate2d_valid(a, kernel))), image),
    rtol=1e-6,
    atol=1e-8,
)
assert not np.allclose(
    engine_dimage, correlate2d_valid(np.pad(dY, ((kh - 1, kh - 1), (kw - 1, kw - 1))), kernel[::-1, :])
)

print(
    collapsible(
        text(
            "Exercise {number}. A two-dimensional convolution of an image {image} with a kernel "
            "{kernel}. What is the image's gradient?",
            number=given(3),
            image=given(image.shape),
            kernel=given(kernel.shape),
        ),
        text(
            "The same argument in each axis: pad $\\bar Y$ {dY} with $k_h-1$ zero rows above and "
            "below and $k_w-1$ zero columns left and right, then correlate with the kernel flipped "
            "in both axes, "
            "`kernel[::-1, ::-1]`; the result has the image's shape {shape}. Flipping only the rows "
            "is wrong (the engine's gradient differs from it); central differences agree with the "
            "two-axis flip, and so does PyTorch {version}'s `torch.nn.functional.conv2d` (a test runs "
            "it). <!-- tested: tests/snippets/test_convolution.py::test_conv2d_matches_pytorch -->",
            # The version the chapter's tests run (tests/snippets/test_convolution.py checks it).
            version=given("2.13"),
            dY=given(dY.shape),
            shape=checked(flipped.shape, against=image.shape),
        ),
    )
)
