"""What staging refuses: a branch on a traced value, with the error it gives."""

from pathlib import Path

import numpy as np

from ad_core import StagingError, grad, stage
from bookkit import load_snippet_module, observed
from bookkit.snippet_modules import REPO_ROOT

clipped = load_snippet_module(Path(__file__).with_name("_branchy.py")).clipped

# --8<-- [start:stage]
try:
    stage(grad(clipped))(np.ones(3))
except StagingError as error:
    message = str(error)
# --8<-- [end:stage]

assert "bool()" in message and "in clipped" in message
assert "if anp.sum(x) > 0:" in message  # the line staging names is the branch
# The eager engine takes the branch the value asks for; only the staged program cannot.
assert np.array_equal(grad(clipped)(np.ones(3)), 2 * np.ones(3))
# Paths are shown from the repository root, as a reader's checkout has them.
print(observed(message.replace(str(REPO_ROOT) + "/", "").replace(". ", ".\n")))
