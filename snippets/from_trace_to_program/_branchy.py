"""A function with a Python branch on a traced value, in a file of its own so that the place
staging names is this file and line, in the build as when the snippet runs standalone."""

import ad_core.numpy as anp


# --8<-- [start:branch]
def clipped(x):
    if anp.sum(x) > 0:  # a Python branch on a traced value
        return anp.sum(x * x)
    return anp.sum(-x)
# --8<-- [end:branch]
