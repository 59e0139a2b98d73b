"""The custom rules of "Gradients that are not the derivative", shared by its snippets."""

import ad_core.numpy as anp
from ad_core import custom_vjp


def sigmoid(x):
    return 1.0 / (1.0 + anp.exp(-x))


def naive_softplus(x):
    return anp.log1p(anp.exp(x))


# --8<-- [start:softplus]
@custom_vjp
def softplus(x):
    return anp.logaddexp(0.0, x)  # log(1 + e^x), computed without forming e^x


softplus.defvjp(lambda ans, x: lambda g: g * sigmoid(x))
# --8<-- [end:softplus]


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
