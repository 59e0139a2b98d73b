"""The function that adds contributions, and the lines of `backward_pass` that call it,
highlighted in the live source."""

import inspect

from ad_core.core import add_cotangents, backward_pass
from bookkit import show_excerpt, show_source

lines, first_line = inspect.getsourcelines(backward_pass)
accumulation = [
    first_line + offset
    for offset, line in enumerate(lines)
    if ("previous" in line or "outgrads[parent]" in line) and "recorder" not in line
]
assert any("add_cotangents(previous, contribution)" in lines[n - first_line] for n in accumulation)
print(show_source(add_cotangents))
print()
print(show_excerpt(backward_pass, r"previous = outgrads\.get\(parent\)", r"add_cotangents\(previous, contrib",
                   full_listing="[The backward pass](backward-pass.md)", hl_lines=accumulation))
