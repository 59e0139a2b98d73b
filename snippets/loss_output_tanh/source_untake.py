"""ad_core's adjoint of indexing: scatter into zeros, adding where indices repeat."""

import ad_core.numpy as anp
from bookkit import show_source

print(show_source(anp.untake))
