"""Theory ↔ source: each idea of the chapter and the code that carries it, located at build time."""

from pathlib import Path

import ad_core.numpy as anp
from ad_core import jacobian
from ad_core.extend import unbroadcast
from bookkit import md_table
from bookkit.source import located, section_location

NORMS = Path(__file__).with_name("_norms.py")

rows = [
    ["LayerNorm backward: statistics over the features, gain inside the sums",
     section_location(NORMS, "layernorm_backward")],
    ["RMSNorm backward: the same without the mean term", section_location(NORMS, "rmsnorm_backward")],
    ["`dgain`, `dbias` sum the batch axis the broadcast added", located(unbroadcast)],
    ["a row statistic's gradient is copied back along the row", located(anp.sum.vjps[0])],
    ["running statistics, unbiased variance", section_location(NORMS, "running_update")],
    ["inference: frozen statistics, no batch coupling", section_location(NORMS, "batchnorm_eval")
     + "; " + section_location(NORMS, "batchnorm_eval_backward")],
    ["the full Jacobian behind the block counts", located(jacobian)],
]
print(md_table(["idea", "where it is implemented"], rows))
