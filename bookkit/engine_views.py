"""Page content recorded from the engine: graph diagrams and event tables.

Both consume `ad_core.inspect` objects (`trace_graph(...)` and `record().events`) and never
re-derive what the engine did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .formatting import fmt_array_inline, fmt_shape, md_table

_EVENT_FIELDS = ("step", "kind", "node", "primitive", "argnum", "value", "shape", "ndim")


def _mermaid_text(text: str) -> str:
    # Inside a quoted Mermaid label a double quote ends the label; Mermaid's entity keeps it.
    return text.replace('"', "#quot;")


def mermaid_graph(
    graph: Any,
    title: str | None = None,
    names: Mapping[int, str] | None = None,
    direction: str = "LR",
) -> str:
    """A ```` ```mermaid ```` flowchart of an `ad_core.inspect.trace_graph(...)` result.

    Each node shows its id, its primitive (or `names[id]` if given, e.g. `{0: "x"}`) and its
    shape; edges go from parent to child and carry the argument position they feed. The root
    is drawn as a stadium and the output as a double-bordered box.
    """
    names = dict(names or {})
    lines = ["```mermaid"]
    if title:
        lines += ["---", f"title: {_mermaid_text(title)}", "---"]
    lines.append(f"flowchart {direction}")
    for node in graph.nodes:
        name = names.get(node.id, "input" if node.is_root else str(node.primitive))
        label = _mermaid_text(f"{node.id} · {name}<br/>{fmt_shape(node.shape)}")
        if node.is_root:
            lines.append(f'    n{node.id}(["{label}"])')
        elif node.id == graph.output:
            lines.append(f'    n{node.id}[["{label}"]]')
        else:
            lines.append(f'    n{node.id}["{label}"]')
    for node in graph.nodes:
        for parent, argnum in zip(node.parents, node.parent_argnums, strict=True):
            lines.append(f'    n{parent} -->|"arg {argnum}"| n{node.id}')
    lines.append("```")
    return "\n".join(lines) + "\n"


Column = str | tuple[str, Callable[[Any], Any]]


def _event_value(event: Any, name: str) -> Any:
    if name in _EVENT_FIELDS:
        return getattr(event, name)
    detail = getattr(event, "detail", {}) or {}
    return detail.get(name)


def _cell(name: str, value: Any, precision: int) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        return f"`{value}`"
    if name in ("shape", "target_shape") and isinstance(value, tuple):
        return f"`{fmt_shape(value)}`"
    if isinstance(value, bool | int | np.integer):
        return str(value)
    if isinstance(value, np.ndarray | np.generic | float | complex):
        return f"`{fmt_array_inline(value, precision)}`"
    if isinstance(value, tuple | list):
        return "`" + ", ".join(str(item) for item in value) + "`" if value else "—"
    return f"`{value}`"


def events_table(
    events: Sequence[Any],
    columns: Sequence[Column],
    precision: int = 4,
) -> str:
    """A Markdown table with one row per `ad_core.inspect.Event`.

    A column is the name of an event field (`step`, `kind`, `node`, `primitive`, `argnum`,
    `value`, `shape`, `ndim`) or of a `detail` entry (`stage`, `cotangent`, `before`, ...),
    or a `(header, function_of_event)` pair for anything else. Arrays are shown on one line.
    """
    headers: list[str] = []
    getters: list[tuple[str, Callable[[Any], Any]]] = []
    for column in columns:
        if isinstance(column, tuple):
            header, getter = column
            headers.append(header)
            getters.append((header, getter))
        else:
            headers.append(column)
            getters.append((column, lambda event, name=column: _event_value(event, name)))
    rows = [[_cell(name, getter(event), precision) for name, getter in getters] for event in events]
    return md_table(headers, rows)
