"""Theory ↔ source for "BatchNorm, input layer and embedding, by hand", located at build time."""

import ad_core.numpy as anp
from ad_core import core
from ad_core.extend import unbroadcast
from bookkit import md_table
from bookkit import mlp_by_hand as model
from bookkit.mlp_by_hand import located, section_location

rows = [
    ["BatchNorm backward, one atomic step at a time", section_location("batchnorm_backward")],
    ["two `+=`: `bndiff` and `hprebn` are used twice",
     section_location("batchnorm_backward") + "; " + located(core.backward_pass)],
    ["BatchNorm backward as one formula", section_location("batchnorm_fused")],
    ["forward sum over the batch → backward copy", located(anp.sum.vjps[0])],
    ["forward broadcast of a `(1, H)` row → backward sum", located(unbroadcast)],
    ["input layer: $dW_1$, $db_1$, $d\\,\\text{embcat}$",
     section_location("input_layer") + "; " + located(anp.dot.vjps[0]) + ", " + located(anp.dot.vjps[1])],
    ["concatenation undone by a reshape", section_location("input_layer")],
    ["embedding backward adds once per use", section_location("embedding") + "; " + located(anp.untake)],
    ["training with hand-written gradients only", section_location("training_loop")],
    ["BatchNorm statistics calibrated after training", located(model.calibrate_batchnorm)],
]
print(md_table(["idea", "where it is implemented"], rows))
