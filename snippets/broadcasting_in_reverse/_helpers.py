"""Shared by the chapter's snippets: the examples, and state tables built from recorded events.

Not shown on the page. Snippets load it with `bookkit.load_snippet_module`, which works both
under markdown-exec and as `python snippets/broadcasting_in_reverse/<file>.py`.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from ad_core.inspect import Event
from bookkit import fmt_array_inline, fmt_shape, md_table

# The chapter's two running examples, taken from the seed article.
SCALAR_X = np.array([1.0, 2.0, 3.0])
SCALAR_BIAS = 2.0
MATRIX = np.arange(6.0).reshape(2, 3)
VECTOR_BIAS = np.array([10.0, 20.0, 30.0])
ROW_BIAS = VECTOR_BIAS.reshape(1, 3)
COLUMN_BIAS = np.array([[100.0], [200.0]])


def code(text: Any) -> str:
    """Inline code for a Markdown table cell (`md_table` escapes any pipe in it)."""
    return f"`{text}`"


def value_cell(value: Any) -> str:
    """A value on one line, as NumPy would print it (rows of a matrix separated by spaces)."""
    return code(fmt_array_inline(value))


def shape_cell(shape: tuple) -> str:
    return code(fmt_shape(shape))


def unbroadcast_events(events: Sequence[Event]) -> list[Event]:
    return [event for event in events if event.kind == "unbroadcast"]


def stages_inside(events: Sequence[Event], primitive: str) -> list[Event]:
    """The `unbroadcast` stages run by one primitive's rule: those recorded after the backward
    pass visits that primitive's node and before its VJP returns."""
    visit = next(e for e in events if e.kind == "visit" and e.primitive == primitive)
    done = next(e for e in events[visit.step :] if e.kind == "vjp" and e.node == visit.node)
    return [e for e in events[visit.step : done.step] if e.kind == "unbroadcast"]


def stage_reason(event: Event, previous: Event | None) -> str:
    """Why `unbroadcast` did what it did at this stage, from the event's own detail."""
    detail = event.detail
    stage = detail["stage"]
    target_shape = tuple(detail["target_shape"])
    target_ndim = detail["target_ndim"]
    if stage == "enter":
        if event.ndim > target_ndim:
            return f"ndim {event.ndim} > target ndim {target_ndim}: leading axes to remove"
        return f"ndim {event.ndim} = target ndim {target_ndim}: no leading axis"
    assert previous is not None, f"stage {stage} without an earlier stage"
    if stage == "sum_leading":
        return f"ndim {previous.ndim} > {target_ndim}: axis {detail['axis']} is new, sum it away"
    if stage == "sum_keepdims":
        axis = detail["axis"]
        return f"target has size 1 on axis {axis}, `x` had {previous.shape[axis]}: sum, keep the axis"
    if stage == "real":
        return "complex `x`, real target: keep the real part"
    if stage == "return":
        assert event.shape == target_shape, (event.shape, target_shape)
        return f"`x` has the target shape {fmt_shape(target_shape)}"
    raise ValueError(f"unknown unbroadcast stage {stage!r}")


def backward_snapshot_rows(
    events: Sequence[Event], primitive: str, target_name: str, target_metadata: tuple
) -> list[list[str]]:
    """The life of one cotangent through one primitive, from the recorded events.

    Starts at the forward event of `primitive` (when its VJP maker captured the target's
    metadata), then follows the backward pass from the visit of that node to the moment its
    contribution is stored for the target's node. Columns: event, point of execution and the
    local name there, value, shape / ndim, axis summed, why / next.
    """
    forward = next(e for e in events if e.kind == "forward" and e.primitive == primitive)
    visit = next(e for e in events if e.kind == "visit" and e.node == forward.node)
    rows = [
        [
            str(forward.step),
            f"forward `{primitive}` → `ans`",
            value_cell(forward.value),
            shape_ndim_cell(forward),
            "",
            f"the VJP maker captures `metadata({target_name})` = `{format_metadata(target_metadata)}`",
        ]
    ]
    previous_stage = None
    for event in events[visit.step :]:
        axis = ""
        if event.kind == "visit":
            if event.node != forward.node:
                continue
            point = f"visit `{primitive}` → `g`"
            why = f"call the rule for `{target_name}` with `g`"
        elif event.kind == "unbroadcast":
            stage = event.detail["stage"]
            point = f"`unbroadcast` `{stage}` → `x`"
            if stage in ("sum_leading", "sum_keepdims"):
                axis = str(event.detail["axis"])
            why = stage_reason(event, previous_stage)
            previous_stage = event
        elif event.kind == "vjp" and event.node == forward.node:
            point = f"rule returns (argnum {event.argnum})"
            why = "`backward_pass` checks its shape against the input's"
        elif event.kind == "accumulate":
            point = f"store → `outgrads[{target_name}]`"
            why = (
                "first contribution, stored as is"
                if event.detail["before"] is None
                else f"added to the earlier total (contribution {event.detail['count']})"
            )
        else:
            continue
        rows.append([str(event.step), point, value_cell(event.value), shape_ndim_cell(event), axis, why])
        if event.kind == "accumulate":
            break
    return rows


def backward_snapshot_table(
    events: Sequence[Event], primitive: str, target_name: str, target_metadata: tuple
) -> str:
    headers = ["event", "point → local", "value", "shape / ndim", "axis summed", "why / next"]
    return md_table(headers, backward_snapshot_rows(events, primitive, target_name, target_metadata))


def shape_ndim_cell(event: Event) -> str:
    return f"{shape_cell(event.shape)} / {event.ndim}"


def format_metadata(meta: tuple) -> str:
    shape, ndim, dtype, iscomplex = meta
    return f"({fmt_shape(shape)}, {ndim}, {np.dtype(dtype).name}, {iscomplex})"


def text_block(message: str, width: int = 78) -> str:
    """A ```text fence holding an error message, each long line wrapped to fit the column."""
    wrapped = [
        textwrap.fill(line, width=width, subsequent_indent="    ", break_on_hyphens=False)
        for line in message.splitlines()
    ]
    return "```text\n" + "\n".join(wrapped) + "\n```"


def rule_makers_calling(module: Any, helper_name: str) -> list[str]:
    """Primitives whose `defvjp(...)` registration at the top level of `module` passes a maker
    that calls `helper_name` (these makers are lambdas, so no function "calls" the helper)."""
    tree = ast.parse(inspect.getsource(module))
    primitives = []
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "defvjp"):
            continue
        calls_helper = any(
            isinstance(node, ast.Call) and getattr(node.func, "id", None) == helper_name
            for argument in call.args[1:]
            for node in ast.walk(argument)
        )
        if calls_helper:
            primitives.append(ast.unparse(call.args[0]).removeprefix("anp."))
    return primitives

