"""Where the broadcast Jacobian's transpose lives in ad_core: source map, listing, theory ↔ source."""

import re

from ad_core.core import backward_pass
from ad_core.extend import unbroadcast, unbroadcast_f
from ad_core.numpy.wrapper import metadata
from bookkit import md_table, show_source, source_location, source_map
from bookkit.source import source_line

print(
    source_map(
        [
            (
                metadata,
                "array → (shape, ndim, dtype, is complex)",
                "remembers the input's shape while tracing",
            ),
            (
                unbroadcast_f,
                "input, rule → reducing rule",
                "wraps a binary op's rule so its output is summed back",
            ),
            (
                unbroadcast,
                "cotangent of the output's shape → cotangent of the input's shape",
                "the transpose of broadcasting: the sums",
            ),
            (backward_pass, "graph, output cotangent → input cotangent", "calls every rule"),
        ]
    )
)
print()
print(show_source(unbroadcast))
print()


def where(obj, starting_with: str | None = None) -> str:
    """`path` and lines of `obj`, or the one line of it that starts with `starting_with`."""
    path, first, last = source_location(obj)
    if starting_with is None:
        return f"`{path}` lines {first} to {last}"
    _, line, _ = source_line(obj, r"^\s*" + re.escape(starting_with))
    return f"`{path}` line {line}"


print(
    md_table(
        ["idea on this page", "where the engine does it"],
        [
            [
                "the forward broadcast records the input's shape",
                f"`metadata`, {where(metadata)}, called from `unbroadcast_f`, {where(unbroadcast_f)}",
            ],
            [
                r"$J^\top$ of the copy: sum the new leading axes",
                f"the `while` loop of `unbroadcast`, {where(unbroadcast, 'while ')}",
            ],
            [
                "sum size-1 axes, keeping them",
                f"the `for` loop of `unbroadcast` (`keepdims=True`), "
                f"{where(unbroadcast, 'x = anp.sum(x, axis=axis, keepdims=True)')}",
            ],
            [
                "contributions of several uses of a value add up",
                f"`backward_pass`, {where(backward_pass)}",
            ],
            [
                "a rule must return its argument's shape (pitfall 1 below)",
                f"the shape check in `backward_pass`, {where(backward_pass, 'if getattr(contribution')}",
            ],
        ],
    )
)
