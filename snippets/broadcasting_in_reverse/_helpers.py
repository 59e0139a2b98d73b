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

from ad_core.numpy.wrapper import metadata
from ad_core.recorder import Event
from bookkit import checked, given, md_table, text
from bookkit.formatting import _fmt_array_inline as fmt_array_inline
from bookkit.formatting import _fmt_shape as fmt_shape

# The chapter's two running examples (a scalar bias on a vector, a vector bias on a matrix).
SCALAR_X = np.array([1.0, 2.0, 3.0])
SCALAR_BIAS = 2.0
MATRIX = np.arange(6.0).reshape(2, 3)
VECTOR_BIAS = np.array([10.0, 20.0, 30.0])
ROW_BIAS = VECTOR_BIAS.reshape(1, 3)
COLUMN_BIAS = np.array([[100.0], [200.0]])


def code(text: Any) -> str:
    """Inline code for a Markdown table cell (`md_table` escapes any pipe in it)."""
    return f"`{text}`"


def _value_text(value: Any) -> str:
    return code(fmt_array_inline(value))


def _shape_text(shape: Any) -> str:
    return code(fmt_shape(tuple(shape)))


def value_cell(value: Any, against: Any, rtol: float = 0.0, atol: float = 0.0) -> Any:
    """A computed value on one line, checked against `against` (an independent computation)."""
    return checked(value, against=against, rtol=rtol, atol=atol, shown_as=_value_text)


def given_value(value: Any) -> Any:
    """An input the snippet chose, on one line."""
    return given(value, shown_as=_value_text)


def shape_cell(shape: tuple, against: tuple) -> Any:
    """A computed shape, checked against `against`. Compared as lists: the empty shape `()` is
    one shared object in CPython, which `checked` refuses as a comparison with itself."""
    return checked(list(shape), against=list(against), shown_as=_shape_text)


def given_shape(shape: tuple) -> Any:
    return given(tuple(shape), shown_as=_shape_text)


def axes_cell(axes: Sequence[int], against: Sequence[int]) -> Any:
    """The axes a stage summed (`none` for none), checked against the axes expected."""
    return checked(list(axes), against=list(against), shown_as=lambda v: ", ".join(map(str, v)) or "none")


def unbroadcast_events(events: Sequence[Event]) -> list[Event]:
    return [event for event in events if event.kind == "unbroadcast"]


def stages_inside(events: Sequence[Event], primitive: str) -> list[Event]:
    """The `unbroadcast` stages run by one primitive's rule: those recorded after the backward
    pass visits that primitive's node and before its VJP returns."""
    visit = next(e for e in events if e.kind == "visit" and e.primitive == primitive)
    done = next(e for e in events[visit.step :] if e.kind == "vjp" and e.node == visit.node)
    return [e for e in events[visit.step : done.step] if e.kind == "unbroadcast"]


def reduction_model(entering: Any, target: Any) -> list[tuple[str, int | None, np.ndarray]]:
    """The stages the chapter's text describes, computed with plain NumPy (not the engine):
    `(stage, axis, value after it)` from `enter` to `return`. Sum leading axes while there are
    more dimensions than the target has; then sum, keeping the axis, where the target has size 1
    and the cotangent does not; drop an imaginary part a real target has no room for."""
    x = np.asarray(entering)
    target_shape = np.shape(target)
    stages: list[tuple[str, int | None, np.ndarray]] = [("enter", None, x)]
    while x.ndim > len(target_shape):
        x = np.sum(x, axis=0)
        stages.append(("sum_leading", 0, x))
    for axis, size in enumerate(target_shape):
        if size == 1 and x.shape[axis] != 1:
            x = np.sum(x, axis=axis, keepdims=True)
            stages.append(("sum_keepdims", axis, x))
    if np.iscomplexobj(x) and not np.iscomplexobj(target):
        x = np.real(x)
        stages.append(("real", None, x))
    stages.append(("return", None, x))
    return stages


def _why(stage: str, before: np.ndarray | None, after: np.ndarray, axis: int | None, target: Any) -> Any:
    """Why `unbroadcast` did what it did at a stage, each number checked against the model."""
    target_ndim = np.ndim(target)
    if stage == "enter":
        if after.ndim > target_ndim:
            return text(
                "ndim {a} > target ndim {b}: leading axes to remove",
                a=checked(after.ndim, against=len(after.shape)),
                b=given(target_ndim),
            )
        return text(
            "ndim {a} = target ndim {b}: no leading axis",
            a=checked(after.ndim, against=len(after.shape)),
            b=given(target_ndim),
        )
    if stage == "sum_leading":
        return text(
            "ndim {a} > {b}: axis {axis} is new, sum it away",
            a=checked(before.ndim, against=after.ndim + 1),
            b=given(target_ndim),
            axis=given(axis),
        )
    if stage == "sum_keepdims":
        return text(
            "target has size {one} on axis {axis}, `x` had {size}: sum, keep the axis",
            one=given(np.shape(target)[axis]),
            axis=given(axis),
            size=given(before.shape[axis]),
        )
    if stage == "real":
        return "complex `x`, real target: keep the real part"
    if stage == "return":
        return text("`x` has the target shape {shape}", shape=shape_cell(after.shape, np.shape(target)))
    raise ValueError(f"unknown unbroadcast stage {stage!r}")


def backward_snapshot_rows(
    events: Sequence[Event],
    primitive: str,
    target_name: str,
    target: Any,
    forward_value: Any,
    cotangent: Any,
    entering: Any,
    gradient: Any,
) -> list[list[Any]]:
    """The life of one cotangent through one primitive, from the recorded events, every cell
    checked against a computation that does not use the engine.

    Starts at the forward event of `primitive` (when its VJP maker captured the target's
    metadata), then follows the backward pass from the visit of that node to the moment its
    contribution is stored for the target's node. The snippet supplies what each moment must
    hold: `forward_value` (the primitive's output, by NumPy), `cotangent` (what reaches the
    node), `entering` (the rule's `f(g)`, before any reduction) and `gradient` (the target's
    cotangent, from central differences or a closed form). The stages in between come from
    `reduction_model`, whose result must equal `gradient` too.

    Columns: event, point of execution and the local name there, value, shape / ndim, axis
    summed, why / next.
    """
    model = reduction_model(entering, target)
    model_result = model[-1][2]
    np.testing.assert_allclose(model_result, gradient, rtol=1e-7, atol=1e-9, err_msg="model against oracle")
    forward = next(e for e in events if e.kind == "forward" and e.primitive == primitive)
    visit = next(e for e in events if e.kind == "visit" and e.node == forward.node)
    position = {id(event): index for index, event in enumerate(events)}

    def step(event: Event) -> Any:
        return checked(event.step, against=position[id(event)])

    def axis_of(event: Event, expected: int | None) -> Any:
        # The axis the recorder reports (none outside the summing stages) against the model's.
        return checked(
            event.detail.get("axis"), against=expected, shown_as=lambda v: "" if v is None else code(v)
        )

    def shape_ndim(event: Event, expected: Any) -> Any:
        return text(
            "{shape} / {ndim}",
            shape=shape_cell(event.shape, np.shape(expected)),
            ndim=checked(event.ndim, against=np.ndim(expected)),
        )

    target_meta = (np.shape(target), np.ndim(target), np.result_type(target), np.iscomplexobj(target))
    rows = [
        [
            step(forward),
            f"forward `{primitive}` → `ans`",
            value_cell(forward.value, forward_value),
            shape_ndim(forward, forward_value),
            axis_of(forward, None),
            text(
                "the VJP maker captures `metadata({name})` = {meta}",
                name=target_name,
                meta=checked(
                    metadata(target), against=target_meta, shown_as=lambda meta: code(format_metadata(meta))
                ),
            ),
        ]
    ]
    stages = iter(model)
    previous = None
    for event in events[visit.step :]:
        if event.kind == "visit":
            if event.node != forward.node:
                continue
            rows.append(
                [
                    step(event),
                    f"visit `{primitive}` → `g`",
                    value_cell(event.value, cotangent),
                    shape_ndim(event, cotangent),
                    axis_of(event, None),
                    f"call the rule for `{target_name}` with `g`",
                ]
            )
        elif event.kind == "unbroadcast":
            stage, axis, expected = next(stages)
            assert event.detail["stage"] == stage, (event.detail["stage"], stage)
            rows.append(
                [
                    step(event),
                    f"`unbroadcast` `{stage}` → `x`",
                    value_cell(event.value, expected),
                    shape_ndim(event, expected),
                    axis_of(event, axis),
                    _why(stage, previous, expected, axis, target),
                ]
            )
            previous = expected
        elif event.kind == "vjp" and event.node == forward.node:
            rows.append(
                [
                    step(event),
                    f"rule returns (`argnum={event.argnum}`)",
                    value_cell(event.value, gradient, rtol=1e-7, atol=1e-9),
                    shape_ndim(event, gradient),
                    axis_of(event, None),
                    "`backward_pass` checks its shape against the input's",
                ]
            )
        elif event.kind == "accumulate":
            before = event.detail["before"]
            why = (
                "first contribution, stored as is"
                if before is None
                else text(
                    "added to the earlier total (contribution {count})",
                    count=checked(
                        event.detail["count"],
                        against=sum(
                            1
                            for e in events[: position[id(event)] + 1]
                            if e.kind == "accumulate" and e.node == event.node
                        ),
                    ),
                )
            )
            rows.append(
                [
                    step(event),
                    f"store → `outgrads[{target_name}]`",
                    value_cell(event.value, gradient, rtol=1e-7, atol=1e-9),
                    shape_ndim(event, gradient),
                    axis_of(event, None),
                    why,
                ]
            )
            break
    assert next(stages, None) is None, "the engine skipped a stage the model expects"
    return rows


def backward_snapshot_table(
    events: Sequence[Event],
    primitive: str,
    target_name: str,
    target: Any,
    forward_value: Any,
    cotangent: Any,
    entering: Any,
    gradient: Any,
) -> str:
    headers = ["event", "point → local", "value", "shape / ndim", "axis summed", "why / next"]
    return md_table(
        headers,
        backward_snapshot_rows(
            events, primitive, target_name, target, forward_value, cotangent, entering, gradient
        ),
    )


def format_metadata(meta: tuple) -> str:
    shape, ndim, dtype, iscomplex = meta
    return f"({fmt_shape(shape)}, {ndim}, {np.dtype(dtype).name}, {iscomplex})"


def wrap_message(message: str, width: int = 78) -> str:
    """An error message with each long line wrapped to fit the column, for `bookkit.observed`."""
    wrapped = [
        textwrap.fill(line, width=width, subsequent_indent="    ", break_on_hyphens=False)
        for line in message.splitlines()
    ]
    return "\n".join(wrapped)


def rule_makers_calling(module: Any, helper_name: str) -> list[str]:
    """Primitives whose `defvjp(...)` registration at the top level of `module` passes a maker
    that calls `helper_name` (these makers are lambdas, so no function "calls" the helper).
    A registration inside a top-level `for` loop counts once for each primitive the loop
    iterates over (`for _modulo in (anp.mod, anp.remainder): defvjp(_modulo, ...)`)."""
    tree = ast.parse(inspect.getsource(module))
    primitives = []
    for statement in tree.body:
        loop_items = None
        if isinstance(statement, ast.For) and isinstance(statement.iter, ast.Tuple | ast.List):
            loop_items = [ast.unparse(item) for item in statement.iter.elts]
            body = statement.body
        else:
            body = [statement]
        for inner in body:
            call = inner.value if isinstance(inner, ast.Expr) else None
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "defvjp"):
                continue
            calls_helper = any(
                isinstance(node, ast.Call) and getattr(node.func, "id", None) == helper_name
                for argument in call.args[1:]
                for node in ast.walk(argument)
            )
            if calls_helper:
                names = loop_items if loop_items is not None else [ast.unparse(call.args[0])]
                primitives.extend(name.removeprefix("anp.") for name in names)
    return primitives
