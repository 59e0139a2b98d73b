"""Theory ↔ source for copies and gathers, with locations read from the engine."""

from ad_core.numpy import vjps, wrapper
from bookkit import md_table, source_location


def where(obj) -> str:
    path, first, last = source_location(obj)
    return f"`{path}` lines {first} to {last}"


print(
    md_table(
        ["idea", "in the engine"],
        [
            ["a copy is a linear map with a 0/1 matrix", "never built: each rule applies $T^\\top$"],
            ["gather: indexing as a primitive", f"`array_getitem`, {where(wrapper.array_getitem)}"],
            ["$T^\\top$ of indexing is scatter-add", f"`untake`, {where(wrapper.untake)}"],
            ["$T^\\top$ of `repeat` sums each block", f"`grad_repeat`, {where(vjps.grad_repeat)}"],
            ["$T^\\top$ of `tile` sums strided copies", f"`grad_tile`, {where(vjps.grad_tile)}"],
            ["$T^\\top$ of a broadcast", f"`unbroadcast`, {where(vjps.unbroadcast)}"],
        ],
    )
)
