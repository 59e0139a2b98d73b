"""ad_core's rule for sum: the cotangent of the batch statistics is copied back over the batch."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, show_source

rule = anp.sum.vjps[0]
print(show_source(rule))
print()
# What the rule does to a `(1, H)` cotangent of a batch sum with keepdims: copy it to every row.
x = np.arange(8.0).reshape(4, 2)
upstream = np.array([[0.5, -2.0]])
copied = grad(lambda x: anp.sum(anp.sum(x, axis=0, keepdims=True) * upstream))(x)
assert_shape_then_close(copied, np.repeat(upstream, 4, axis=0))
print(
    f"On a `(4, 2)` input summed over axis 0 with `keepdims=True`, an upstream cotangent "
    f"`{upstream.tolist()}` comes back as that row copied to all {copied.shape[0]} rows "
    "(asserted): the `np.ones_like(...) * dbnvar` and `np.ones_like(...) * dbnmeani` of the "
    "hand-written BatchNorm backward."
)
