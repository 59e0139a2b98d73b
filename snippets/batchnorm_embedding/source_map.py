"""Where BatchNorm, the input layer and the embedding's backward steps live in ad_core."""

import ad_core.numpy as anp
from ad_core import core
from ad_core.extend import unbroadcast
from bookkit import source_map

print(
    source_map(
        [
            (core.backward_pass, "output cotangent → input cotangent",
             "adds the two arrivals at `bndiff` and at `hprebn`"),
            (anp.sum.vjps[0], "`(1, H)` → `(B, H)`",
             "backward of the batch sums in the mean and the variance"),
            (unbroadcast, "`(B, H)` → `(1, H)` or `(H,)`",
             "backward of broadcasting `bnmeani`, `bnvar_inv`, `bngain`, `bnbias`, `b1`"),
            (anp.dot.vjps[0], "`(B, H)` → `(B, 3·E)`", "$d\\,\\text{embcat} = dX\\,W_1^\\top$"),
            (anp.dot.vjps[1], "`(B, H)` → `(3·E, H)`", "$dW_1 = \\text{embcat}^\\top dX$"),
            (anp.array_getitem, "`C` `(V, E)` → `(B, 3, E)`", "the embedding lookup `C[Xb]`"),
            (anp.untake, "`(B, 3, E)` → `(V, E)`",
             "its backward: `np.add.at`, one addition per use"),
        ]
    )
)
