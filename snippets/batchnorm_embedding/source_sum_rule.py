"""ad_core's rule for sum: the cotangent of the batch statistics is copied back over the batch."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, show_excerpt, text

rule = anp.sum.vjps[0]
print(show_excerpt(rule, r"shape = _shape\(x\)", r"return lambda g: anp\.broadcast_to",
                   full_listing="[Writing VJP rules](../part1/vjp-rules.md)"))
print()
# What the rule does to a `(1, H)` cotangent of a batch sum with keepdims: copy it to every row.
x = np.arange(8.0).reshape(4, 2)
upstream = np.array([[0.5, -2.0]])
copied = grad(lambda x: anp.sum(anp.sum(x, axis=0, keepdims=True) * upstream))(x)
print(text(
    "On a {shape} input summed over axis {axis} with `keepdims=True`, an upstream cotangent "
    "{upstream} comes back as that row copied to all {rows} rows: the `np.ones_like(...) * dbnvar` "
    "and `np.ones_like(...) * dbnmeani` of the hand-written BatchNorm backward.",
    shape=given(x.shape), axis=given(0), upstream=given(upstream.tolist(), shown_as=lambda v: f"`{v}`"),
    rows=checked(int(np.sum(np.all(copied == upstream, axis=1))), against=x.shape[0]),
))
