"""Page content recorded from the engine: graph diagrams and event tables.

Both consume `ad_core.recorder` objects (`trace_graph(...)` and `record().events`) and never
re-derive what the engine did.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from . import claims
from .claims import Rendered, UncheckedClaim, checked
from .formatting import _fmt_array_inline as fmt_array_inline
from .formatting import _fmt_shape as fmt_shape
from .formatting import _render_table

_EVENT_FIELDS = ("step", "kind", "node", "primitive", "argnum", "value", "shape", "ndim")


def _mermaid_text(text: str) -> str:
    # Inside a quoted Mermaid label a double quote ends the label; Mermaid's entity keeps it.
    return text.replace('"', "#quot;")


def _graph_lines(
    graph: Any, names: Mapping[int, str] | None, prefix: str = "", indent: str = "    ",
    compact: bool = False,
) -> list[str]:
    """The node and edge lines of one traced graph; `prefix` keeps the ids of several graphs
    in one diagram apart. `compact`: labels on one line, and `arg n` only on the edges into a
    node with several parents (a node with one parent can only take it as its argument)."""
    names = dict(names or {})
    lines = []
    for node in graph.nodes:
        name = names.get(node.id, "input" if node.is_root else str(node.primitive))
        label = _mermaid_text(f"{node.id} · {name}{' · ' if compact else '<br/>'}{fmt_shape(node.shape)}")
        if node.is_root:
            lines.append(f'{indent}{prefix}n{node.id}(["{label}"])')
        elif node.id == graph.output:
            lines.append(f'{indent}{prefix}n{node.id}[["{label}"]]')
        else:
            lines.append(f'{indent}{prefix}n{node.id}["{label}"]')
    for node in graph.nodes:
        for parent, argnum in zip(node.parents, node.parent_argnums, strict=True):
            if compact and len(node.parents) == 1:
                lines.append(f"{indent}{prefix}n{parent} --> {prefix}n{node.id}")
            else:
                lines.append(f'{indent}{prefix}n{parent} -->|"arg {argnum}"| {prefix}n{node.id}')
    return lines


# Mermaid's flowchart spacing for `compact=True`: ranks closer than its default 50 px.
_COMPACT_SPACING = ["config:", "  flowchart:", "    rankSpacing: 28", "    nodeSpacing: 30"]


def mermaid_graph(
    graph: Any,
    title: str | None = None,
    names: Mapping[int, str] | None = None,
    direction: str = "LR",
    compact: bool = False,
) -> str:
    """A ```` ```mermaid ```` flowchart of an `ad_core.recorder.trace_graph(...)` result.

    Each node shows its id, its primitive (or `names[id]` if given, e.g. `{0: "x"}`) and its
    shape; edges go from parent to child and carry the argument position they feed. The root
    is drawn as a stadium and the output as a double-bordered box.

    `compact=True` is for a deep graph drawn top to bottom (a long chain, which Mermaid cannot
    wrap into rows and which left to right would be several columns wide): one-line labels,
    `arg n` only where a node has several parents, and closer ranks, so it is about two thirds
    as tall.
    """
    lines = ["```mermaid"]
    front = ([f"title: {_mermaid_text(title)}"] if title else []) + (_COMPACT_SPACING if compact else [])
    if front:
        lines += ["---", *front, "---"]
    lines.append(f"flowchart {direction}")
    lines += _graph_lines(graph, names, compact=compact)
    lines.append("```")
    # Drawn from the recorded graph: ids, primitives and shapes are what the trace holds.
    return Rendered("\n".join(lines) + "\n")


def mermaid_graphs(panels: Sequence[tuple[str, Any]], direction: str = "TB") -> str:
    """Several traced graphs side by side in one ```` ```mermaid ```` diagram, one titled box
    (`(title, graph)`) each, drawn as `mermaid_graph` draws one graph.

    One diagram has one scale: two separate diagrams that the column shrinks by different
    factors show their text at different sizes, which a comparison should not. The boxes are
    not linked, so Mermaid places them next to each other and each keeps `direction`.
    """
    lines = ["```mermaid", "flowchart TB"]
    for index, (title, graph) in enumerate(panels):
        lines += [f'    subgraph g{index} ["{_mermaid_text(title)}"]', f"        direction {direction}"]
        lines += _graph_lines(graph, None, prefix=f"g{index}", indent="        ")
        lines.append("    end")
    lines.append("```")
    return Rendered("\n".join(lines) + "\n")


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


# Columns that name or order events rather than state a value the engine computed.
_IDENTITY_COLUMNS = frozenset({"step", "kind", "node", "primitive", "argnum", "stage"})


def events_table(
    events: Sequence[Any],
    columns: Sequence[Column],
    precision: int = 4,
    checks: Mapping[str, Callable[[Any], Any]] | None = None,
    tolerance: Mapping[str, float] | None = None,
) -> Rendered:
    """A Markdown table with one row per `ad_core.recorder.Event`, each value checked.

    A column is the name of an event field (`step`, `kind`, `node`, `primitive`, `argnum`,
    `value`, `shape`, `ndim`) or of a `detail` entry (`stage`, `cotangent`, `before`, ...),
    or a `(header, function_of_event)` pair for anything else. Arrays are shown on one line.

    `checks` maps a column's header to a function of the event that computes, independently of
    the engine, what the cell must hold (for instance the cotangent from a closed form); the
    table is only returned if every such cell equals its check (`tolerance[header]` as a
    relative and absolute tolerance, exact by default). A column that shows a number, an array
    or a shape must have a check (`step`, `node`, `argnum`, `kind`, `primitive` and `stage`
    name events and need none); otherwise `UncheckedClaim` is raised.
    """
    checks = dict(checks or {})
    tolerance = dict(tolerance or {})
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
    unknown = set(checks) - set(headers)
    if unknown:
        raise KeyError(f"events_table: checks for columns that are not shown: {sorted(unknown)}")
    rows = []
    for number, event in enumerate(events):
        row = []
        for header, getter in getters:
            value = getter(event)
            if header in checks:
                expected = checks[header](event)
                if value is None or expected is None:
                    if (value is None) != (expected is None):
                        raise AssertionError(
                            f"events_table column {header!r}, row {number}: {value!r} against {expected!r}"
                        )
                else:
                    rel = tolerance.get(header, 0.0)
                    checked(value, against=expected, rtol=rel, atol=rel)
            elif header not in _IDENTITY_COLUMNS and _states_a_value(value):
                raise UncheckedClaim(
                    f"events_table column {header!r} shows {value!r} without a check: pass "
                    f"checks={{{header!r}: lambda event: <independent computation>}}"
                )
            row.append(_cell(header, value, precision))
        rows.append(row)
    return _render_table(headers, rows, None, precision)


_ARGUMENT_POSITION = re.compile(r"\barg(?:ument|num)? \d+\b")


def _states_a_value(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, str):
        # "arg 0" names an edge of the graph, like the argnum column.
        value = _ARGUMENT_POSITION.sub("", value)
        return bool(claims.claims_in(value)) or claims.is_flag_cell(value)
    if isinstance(value, tuple | list):
        return any(_states_a_value(item) for item in value) or (
            bool(value) and all(isinstance(item, int | np.integer) for item in value)
        )
    return isinstance(value, bool | int | float | complex | np.ndarray | np.generic)
