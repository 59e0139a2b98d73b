"""Where each step of the chapter's backward pass lives in ad_core."""

import ad_core.numpy as anp
from ad_core import core
from ad_core.extend import unbroadcast
from bookkit import source_map

print(
    source_map(
        [
            (core.backward_pass, "output cotangent → input cotangent",
             "visits nodes in reverse order; adds the contributions that meet at a node"),
            (anp.untake, "`(B,)` → `(B, V)`",
             "backward of the pick `R[b, y_b]`: scatter into zeros"),
            (anp.mean.vjps[0], "`()` → `(B,)`", "backward of the mean: copy, divide by $B$"),
            (anp.sum.vjps[0], "`(B, 1)` → `(B, V)`",
             "backward of a sum: copy to every summed position"),
            (unbroadcast, "`(B, V)` → `(B, 1)` or `(V,)`",
             "backward of a broadcast: sum the copies"),
            (anp.max.vjps[0], "`(B, 1)` → `(B, V)`",
             "backward of `max`: the gradient goes to the winner"),
            (anp.dot.vjps[0], "`(B, V)` → `(B, H)`", "$dh = dZ\\,W_2^\\top$"),
            (anp.dot.vjps[1], "`(B, V)` → `(H, V)`", "$dW_2 = h^\\top dZ$"),
        ]
    )
)
