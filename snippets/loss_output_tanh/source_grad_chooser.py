"""ad_core's rule for max: the cotangent goes to the positions that won."""

import inspect

import ad_core.numpy as anp
from bookkit import show_source, source_location

_, first, _ = source_location(anp.max.vjps[0])
lines = inspect.getsource(anp.max.vjps[0]).splitlines()
winner_lines = [first + i for i, text in enumerate(lines) if "winners" in text]
assert len(winner_lines) == 2
print(show_source(anp.max.vjps[0], hl_lines=winner_lines))
