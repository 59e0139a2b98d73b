"""The custom rules of "Gradients that are not the derivative", shared by its snippets."""

import ad_core.numpy as anp
from ad_core import custom_vjp


def norm(x):
    return anp.sqrt(anp.sum(x**2))


# --8<-- [start:safe_norm]
@custom_vjp
def safe_norm(x):
    return anp.sqrt(anp.sum(x**2))  # the same body as `norm`


# x / |x| away from the origin; at the origin, where there is no derivative, the subgradient 0
safe_norm.defvjp(lambda ans, x: lambda g: g * x / anp.where(ans > 0, ans, 1.0))
# --8<-- [end:safe_norm]


# --8<-- [start:unguarded]
@custom_vjp
def unguarded_norm(x):
    return anp.sqrt(anp.sum(x**2))


unguarded_norm.defvjp(lambda ans, x: lambda g: g * x / ans)  # the derivative's formula, as written
# --8<-- [end:unguarded]


# --8<-- [start:straight_through]
@custom_vjp
def round_straight_through(x):
    return anp.round(x)


round_straight_through.defvjp(lambda ans, x: lambda g: g)  # backward: as if it were x
# --8<-- [end:straight_through]


# --8<-- [start:clip_cotangent]
@custom_vjp
def clip_cotangent(x, bound):
    return x  # the forward pass is the identity


clip_cotangent.defvjp(lambda ans, x, bound: lambda g: anp.clip(g, -bound, bound), None)
# --8<-- [end:clip_cotangent]
