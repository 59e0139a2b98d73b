"""Theory ↔ source for "BatchNorm, input layer and embedding, by hand", located at build time."""

import ad_core.numpy as anp
from ad_core import core
from ad_core.extend import unbroadcast
from bookkit import load_snippet_module, md_table
from bookkit.source import located, section_location

BACKWARD = "snippets/network_by_hand/_backward.py"
training = load_snippet_module("snippets/network_by_hand/_training.py")
TRAINING = "snippets/network_by_hand/_training.py"

rows = [
    ["BatchNorm backward, one atomic step at a time", section_location(BACKWARD, "batchnorm_backward")],
    ["two `+=`: `bndiff` and `hprebn` are used twice",
     section_location(BACKWARD, "batchnorm_backward") + "; " + located(core.backward_pass)],
    ["BatchNorm backward as one formula", section_location(BACKWARD, "batchnorm_fused")],
    ["forward sum over the batch → backward copy", located(anp.sum.vjps[0])],
    ["forward broadcast of a `(1, H)` row → backward sum", located(unbroadcast)],
    ["input layer: $dW_1$, $db_1$, $d\\,\\text{embcat}$",
     section_location(BACKWARD, "input_layer") + "; "
     + located(anp.dot.vjps[0]) + ", " + located(anp.dot.vjps[1])],
    ["concatenation undone by a reshape", section_location(BACKWARD, "input_layer")],
    ["embedding backward adds once per use",
     section_location(BACKWARD, "embedding") + "; " + located(anp.untake)],
    ["training with hand-written gradients only", section_location(TRAINING, "training_loop")],
    ["BatchNorm statistics calibrated after training", located(training.calibrate_batchnorm)],
]
print(md_table(["idea", "where it is implemented"], rows))
