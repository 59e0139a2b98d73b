"""ad_core's adjoint of indexing: scatter into zeros, adding where indices repeat."""

import ad_core.numpy as anp
from bookkit import show_excerpt

print(show_excerpt(anp.untake, r"result = _np\.zeros", r"_np\.add\.at\(result, index, g\)",
                   full_listing="[Copies and gathers](../part2/copies-and-gathers.md)"))
