"""A straight-through estimator, and gradient clipping after the backward pass versus inside it."""

import warnings
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, load_snippet_module, text

rules = load_snippet_module(Path(__file__).with_name("_rules.py"))
rng = np.random.default_rng(3)
x = rng.uniform(-2.0, 2.0, size=4)

# Straight-through: the forward pass rounds, the backward pass treats round as the identity.
# `anp.round` is not traced (a notrace_primitive: its output carries no derivative), so the
# engine warns that the output does not depend on `x`, and returns zeros.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    true_gradient = grad(lambda v: anp.sum(anp.round(v) ** 2))(x)
assert any("does not depend" in str(w.message) for w in caught)
straight_through = grad(lambda v: anp.sum(rules.round_straight_through(v) ** 2))(x)
assert true_gradient.shape == straight_through.shape == x.shape
print(text(
    "On `x` = {x}, the loss $\\sum_i \\mathrm{{round}}(x_i)^2$ has derivative {zero} almost "
    "everywhere: rounding is flat between its jumps, so the true gradient tells an optimiser "
    "nothing. The straight-through rule gives {ste}, which is $2\\,\\mathrm{{round}}(x)$: the "
    "gradient of $\\sum_i y_i^2$ at the rounded values, passed to `x` unchanged.",
    x=given(x),
    zero=checked(true_gradient, against=np.zeros(4)),
    ste=checked(straight_through, against=2 * np.round(x)),
))
print()

# --8<-- [start:clipping]
weights = np.array([3.0, -0.5, 2.0, 0.1])


def loss(v):                        # d loss / d v_i = 2 * weights_i**2 * v_i
    return anp.sum((weights * v) ** 2)


gradient = grad(loss)(x)
by_value = np.clip(gradient, -1.0, 1.0)                          # after the backward pass
by_norm = gradient * min(1.0, 1.0 / np.linalg.norm(gradient))    # global norm at most 1


def loss_clipped_inside(v):         # clip the cotangent that reaches weights * v
    return anp.sum(rules.clip_cotangent(weights * v, 1.0) ** 2)


inside = grad(loss_clipped_inside)(x)
# --8<-- [end:clipping]
assert gradient.shape == by_value.shape == by_norm.shape == inside.shape == x.shape
hand_gradient = 2 * weights**2 * x
u = weights * x
print(text(
    "With `weights` = {w}, the gradient is {g}. Clipped by value to $[-1, 1]$ after the backward "
    "pass it is {bv}, which changes its direction; rescaled to global norm one it is {bn} (norm "
    "{norm}), the same direction. Clipping the cotangent at the point $u = w \\odot x$ gives "
    "{inside}: the cotangent $2u$ is clipped to $[-1, 1]$ *there*, then multiplied by `weights` on "
    "its way to `x`, so entries can exceed one. The rule is not linear in the cotangent: the loss "
    "halved gives, doubled, {halved}, not the same gradient, so a mean instead of a sum, or a "
    "loss scale, changes which entries are clipped.",
    w=given(weights),
    g=checked(gradient, against=hand_gradient, rtol=1e-15),
    bv=checked(by_value, against=np.minimum(1.0, np.maximum(-1.0, hand_gradient))),
    bn=checked(by_norm, against=hand_gradient / np.sqrt(np.sum(hand_gradient**2)), rtol=1e-15),
    norm=checked(float(np.linalg.norm(by_norm)), against=1.0, rtol=1e-15),
    inside=checked(inside, against=weights * np.clip(2 * u, -1.0, 1.0), rtol=1e-15),
    halved=checked(2 * grad(lambda v: 0.5 * loss_clipped_inside(v))(x),
                   against=2 * weights * np.clip(u, -1.0, 1.0), rtol=1e-15),
))
assert not np.allclose(2 * grad(lambda v: 0.5 * loss_clipped_inside(v))(x), inside)
cosine = by_value @ gradient / (np.linalg.norm(by_value) * np.linalg.norm(gradient))
assert cosine < 1 - 1e-6  # clipping by value turned the gradient
