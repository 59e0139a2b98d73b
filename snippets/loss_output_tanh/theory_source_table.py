"""Theory ↔ source: each idea of the chapter and the code that carries it, located at build time."""

import ad_core.numpy as anp
from ad_core import core
from ad_core.extend import unbroadcast
from bookkit import md_table
from bookkit.gradient_comparison import compare
from bookkit.source import located, section_location

BACKWARD = "snippets/network_by_hand/_backward.py"

rows = [
    ["two paths into one tensor add up (`+=`)",
     section_location(BACKWARD, "accumulate") + "; in the engine " + located(core.backward_pass)],
    ["forward sum → backward copy", located(anp.sum.vjps[0])],
    ["forward broadcast → backward sum", located(unbroadcast)],
    ["the max path goes to the winner",
     section_location(BACKWARD, "max_path") + "; " + located(anp.max.vjps[0])],
    ["picking `R[b, y_b]` → scatter $-1/B$",
     section_location(BACKWARD, "loss_backward") + "; " + located(anp.untake)],
    ["$dh = dZ W_2^\\top$, $dW_2 = h^\\top dZ$", section_location(BACKWARD, "output_layer") + "; "
     + located(anp.dot.vjps[0]) + ", " + located(anp.dot.vjps[1])],
    ["$(P - \\mathbf{1}_y)/B$", section_location(BACKWARD, "ce_fused")],
    ["every tensor checked, shape first", located(compare)],
]
print(md_table(["idea", "where it is implemented"], rows))
