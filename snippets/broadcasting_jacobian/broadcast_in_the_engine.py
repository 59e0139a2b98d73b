"""Where the broadcast Jacobian's transpose lives in ad_core: source map, listing, theory ↔ source."""

from pathlib import Path

from ad_core.core import add_cotangents, backward_pass
from ad_core.extend import unbroadcast, unbroadcast_f
from ad_core.numpy.wrapper import metadata
from bookkit import load_snippet_module, md_table, show_excerpt, source_map, text

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
print(show_excerpt(unbroadcast, r"while _ndim\(x\) > target_ndim", r"x = anp\.real\(x\)",
                   full_listing="[Broadcasting in reverse](../part1/broadcasting-in-reverse.md)"))
print()


where = load_snippet_module(Path(__file__).with_name("_source_lines.py"))

print(
    md_table(
        ["idea on this page", "where the engine does it"],
        [
            [
                "the forward broadcast records the input's shape",
                text(
                    "`metadata`, {metadata}, called from `unbroadcast_f`, {unbroadcast_f}",
                    metadata=where.lines_of(metadata),
                    unbroadcast_f=where.lines_of(unbroadcast_f),
                ),
            ],
            [
                r"$J^\top$ of the copy: sum the new leading axes",
                text("the `while` loop of `unbroadcast`, {line}", line=where.line_of(unbroadcast, "while ")),
            ],
            [
                "sum stretched axes of size one, keeping them",
                text(
                    "the `for` loop of `unbroadcast` (`keepdims=True`), {line}",
                    line=where.line_of(unbroadcast, "x = anp.sum(x, axis=axis, keepdims=True)"),
                ),
            ],
            [
                "contributions of several uses of a value add up",
                text(
                    "`backward_pass` adds them with `add_cotangents` ({lines}), at {line}",
                    lines=where.lines_of(add_cotangents),
                    line=where.line_of(backward_pass, "else add_cotangents(previous, contribution)"),
                ),
            ],
            [
                "a rule must return its argument's shape (the forgotten-`keepdims` pitfall below)",
                text(
                    "the shape check in `backward_pass`, {line}",
                    line=where.line_of(backward_pass, "if getattr(contribution"),
                ),
            ],
        ],
    )
)
