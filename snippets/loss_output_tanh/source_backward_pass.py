"""ad_core's backward pass, with the line that adds contributions highlighted."""

import inspect

from ad_core import core
from bookkit import checked, show_excerpt, source_location, text
from bookkit.source import source_line

_, first, last = source_location(core.backward_pass)
lines = inspect.getsource(core.backward_pass).splitlines()
adding = [first + i for i, text in enumerate(lines) if "add_cotangents(previous, contribution)" in text]
assert len(adding) == 1 and first <= adding[0] <= last
print(show_excerpt(core.backward_pass, r"contribution = vjp\(g\)",
                   r"add_cotangents\(previous, contribution\)",
                   full_listing="[The backward pass](../part1/backward-pass.md)", hl_lines=adding))
print()
print(text(
    "Line {line} is the engine's `+=`: when a node's cotangent already holds a contribution "
    "from one child, the contribution from the next child is added to it. The node is only "
    "visited (and its own rule applied) after all its children have been, because `toposort` "
    "orders the nodes so.",
    line=checked(adding[0],
                 against=source_line(core.backward_pass, r"add_cotangents\(previous, contribution\)")[1]),
))
