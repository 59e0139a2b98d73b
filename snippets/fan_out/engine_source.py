"""The accumulation step inside `backward_pass`, highlighted in the live source."""

import inspect

from ad_core.core import backward_pass
from bookkit import show_source

lines, first_line = inspect.getsourcelines(backward_pass)
accumulation = [
    first_line + offset
    for offset, line in enumerate(lines)
    if ("previous" in line or "outgrads[parent]" in line) and "recorder" not in line
]
assert accumulation, "backward_pass must still read the previous total and store the new one"
print(show_source(backward_pass, hl_lines=accumulation))
