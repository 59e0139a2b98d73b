"""Broadcasts from real models: an attention mask and a RoPE-style cosine table."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, fmt_shape, md_table

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


def summed_axes(
    shape: tuple[int, ...], output_shape: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """New leading axes (summed away) and stretched size-1 axes (summed with keepdims)."""
    leading = len(output_shape) - len(shape)
    stretched = [leading + a for a, size in enumerate(shape) if size == 1 != output_shape[leading + a]]
    return tuple(range(leading)), tuple(stretched)


cases = [
    ("mask add", "scores", scores.shape, scores.shape),
    ("mask add", "mask", mask.shape, scores.shape),
    ("RoPE multiply", "x", activations.shape, activations.shape),
    ("RoPE multiply", "cos", cos_table.shape, activations.shape),
]
table = []
for (op, name, shape, output_shape), key in zip(cases, expected, strict=True):
    new_axes, stretched_axes = summed_axes(shape, output_shape)
    axes = new_axes + stretched_axes
    error = np.max(np.abs(computed[key] - expected[key]))
    table.append(
        [
            op,
            f"`{name}`",
            f"`{fmt_shape(shape)}`",
            f"`{axes}`" if axes else "none",
            "yes" if stretched_axes else "no",
            f"`{fmt_shape(computed[key].shape)}`",
            f"{error:.1e}",
        ]
    )
assert summed_axes(mask.shape, scores.shape) == ((), (0, 1))
assert summed_axes(cos_table.shape, activations.shape) == ((), (0,))
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
