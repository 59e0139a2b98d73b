"""Theory ↔ source for copies and gathers, with locations read from the engine."""

from ad_core.numpy import vjps, wrapper
from bookkit import load_snippet_module, md_table, text

where = load_snippet_module("snippets/broadcasting_jacobian/_source_lines.py")


def located(name: str, obj) -> object:
    return text("`{name}`, {lines}", name=name, lines=where.lines_of(obj))


print(
    md_table(
        ["idea", "in the engine"],
        [
            ["a copy is a linear map with a zero-one matrix", "never built: each rule applies $T^\\top$"],
            ["gather: indexing as a primitive", located("array_getitem", wrapper.array_getitem)],
            ["$T^\\top$ of indexing is scatter-add", located("untake", wrapper.untake)],
            ["$T^\\top$ of `repeat` sums each block", located("grad_repeat", vjps.grad_repeat)],
            ["$T^\\top$ of `tile` sums strided copies", located("grad_tile", vjps.grad_tile)],
            ["$T^\\top$ of a broadcast", located("unbroadcast", vjps.unbroadcast)],
        ],
    )
)
