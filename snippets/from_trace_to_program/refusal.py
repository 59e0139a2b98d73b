"""What staging refuses: a branch on a traced value, with the error it gives."""

import numpy as np

import ad_core.numpy as anp
from ad_core import StagingError, grad, stage
from bookkit import observed


# --8<-- [start:branch]
def clipped(x):
    if anp.sum(x) > 0:  # a Python branch on a traced value
        return anp.sum(x * x)
    return anp.sum(-x)


try:
    stage(grad(clipped))(np.ones(3))
except StagingError as error:
    message = str(error)
# --8<-- [end:branch]

assert "bool()" in message and "in clipped" in message
# The eager engine takes the branch the value asks for; only the staged program cannot.
assert np.array_equal(grad(clipped)(np.ones(3)), 2 * np.ones(3))
print(observed(message.replace(". ", ".\n")))
