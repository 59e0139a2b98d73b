"""Broadcasts from real models: an attention mask and a RoPE-style cosine table."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, checked, given, md_table, text, yes_no

batch, heads, tokens, head_dim = 2, 3, 4, 6
rng = np.random.default_rng(42)
scores = rng.normal(size=(batch, heads, tokens, tokens))
mask = rng.normal(size=(1, 1, tokens, tokens))  # a learnable bias, shared by every batch and head
scores_upstream = rng.normal(size=scores.shape)

activations = rng.normal(size=(batch, tokens, head_dim))
cos_table = rng.normal(size=(1, tokens, head_dim))  # one row per position, shared by the batch
rope_upstream = rng.normal(size=activations.shape)


# --8<-- [start:models]
def masked_scores_loss(s, mask):
    return anp.sum(scores_upstream * (s + mask))  # (b, h, n, n) + (1, 1, n, n)


def rope_loss(x, cos):
    return anp.sum(rope_upstream * (x * cos))  # (b, n, d) * (1, n, d)


mask_gradient = grad(masked_scores_loss, 1)(scores, mask)
cos_gradient = grad(rope_loss, 1)(activations, cos_table)
activation_gradient = grad(rope_loss, 0)(activations, cos_table)
# --8<-- [end:models]

expected = {
    "scores": scores_upstream,
    "mask": scores_upstream.sum(axis=(0, 1), keepdims=True),
    "x": rope_upstream * cos_table,
    "cos": (rope_upstream * activations).sum(axis=0, keepdims=True),
}
computed = {
    "scores": grad(masked_scores_loss, 0)(scores, mask),
    "mask": mask_gradient,
    "x": activation_gradient,
    "cos": cos_gradient,
}
for key in expected:
    assert_shape_then_close(computed[key], expected[key], rtol=1e-12, atol=1e-12)


def summed_axes(shape: tuple[int, ...], output_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The output axes a parameter of `shape` is copied along, read off NumPy's broadcast view:
    the axes where the view of the parameter has stride 0 and more than one entry."""
    view = np.broadcast_to(np.zeros(shape), output_shape)
    return tuple(
        axis
        for axis, (stride, size) in enumerate(zip(view.strides, view.shape, strict=True))
        if stride == 0 and size != 1
    )


cases = [
    ("mask add", "scores", scores.shape, scores.shape, ()),
    ("mask add", "mask", mask.shape, scores.shape, (0, 1)),
    ("RoPE multiply", "x", activations.shape, activations.shape, ()),
    ("RoPE multiply", "cos", cos_table.shape, activations.shape, (0,)),
]
ROUNDING = 1e-12  # the engine and the manual sums add the same terms in different orders
table = []
for (op, name, shape, output_shape, shared_axes), key in zip(cases, expected, strict=True):
    axes = summed_axes(shape, output_shape)
    error = np.max(np.abs(computed[key] - expected[key]))
    table.append(
        [
            op,
            f"`{name}`",
            given(shape),
            checked(
                list(axes), against=list(shared_axes), shown_as=lambda v: f"`{tuple(v)}`" if v else "none"
            ),
            # Every axis here has the same rank as the output, so a summed axis is kept.
            checked(
                bool(axes), against=len(shape) == len(output_shape) and shape != output_shape, shown_as=yes_no
            ),
            checked(computed[key].shape, against=shape),
            text("{e:.1e}", e=checked(error, against=0.0, atol=ROUNDING)),
        ]
    )
print(
    md_table(
        [
            "operation",
            "input",
            "shape",
            "axes summed",
            "keepdims",
            "engine gradient shape",
            "max abs difference to manual",
        ],
        table,
    )
)
print()
print(
    "For the multiply, the other factor rides along: the gradient of the cosine table is "
    "`(G * x).sum(axis=0, keepdims=True)`, the gradient of `x` is `G * cos` and needs no "
    "reduction, because `x` already has the full output shape."
)
