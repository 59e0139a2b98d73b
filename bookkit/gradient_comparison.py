"""A hand-vs-engine gradient table: one row per tensor, shape first, then bits, then closeness.

Any chapter that writes a gradient by hand can compare it with an engine's through `compare`
and print the result with `comparison_table` and `comparison_summary`; every cell is checked
against a prediction the chapter makes independently (which gradients should be bit-equal,
which central differences confirm).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .claims import Rendered, checked, given, yes_no
from .formatting import md_table, text


@dataclass(frozen=True)
class Comparison:
    """One row of a hand-vs-engine table."""

    name: str
    shape_hand: tuple[int, ...]
    shape_engine: tuple[int, ...]
    exact: bool
    approximate: bool
    max_abs_diff: float
    scale: float = 0.0  # the largest entry of the engine's gradient, in absolute value

    @property
    def shapes_match(self) -> bool:
        return self.shape_hand == self.shape_engine


APPROX_RTOL = 1e-9
APPROX_ATOL = 1e-12


def compare(name: str, hand: np.ndarray, engine: np.ndarray) -> Comparison:
    """Shape first (a broadcasting comparison could hide a wrong shape), then values."""
    hand, engine = np.asarray(hand), np.asarray(engine)
    if hand.shape != engine.shape:
        return Comparison(name, hand.shape, engine.shape, False, False, float("nan"))
    return Comparison(
        name=name,
        shape_hand=hand.shape,
        shape_engine=engine.shape,
        exact=bool(np.array_equal(hand, engine)),
        approximate=bool(np.allclose(hand, engine, rtol=APPROX_RTOL, atol=APPROX_ATOL)),
        max_abs_diff=float(np.max(np.abs(hand - engine))) if hand.size else 0.0,
        scale=float(np.max(np.abs(engine))) if engine.size else 0.0,
    )



def _tick(ok: bool) -> str:
    return "✓" if ok else "✗"


def _diff_text(value: float) -> str:
    return f"{value:.1e}"


def comparison_rows(
    comparisons: list[Comparison],
    shapes: Mapping[str, tuple[int, ...]],
    approximate_expected: Mapping[str, bool],
    bit_equal_expected: Mapping[str, bool],
    second: tuple[list[Comparison], Mapping[str, bool]] | None = None,
) -> list[list[Any]]:
    """Table rows, each cell checked: the gradient's shape against its tensor's shape; the shape
    check against the engine's shape; "bit-equal" against `bit_equal_expected` (a prediction);
    "approximate" against `approximate_expected` (central differences); the largest difference
    against zero within the closeness tolerance. `second` adds a bit-equal column for another
    batch, with its own predictions."""
    other = {c.name: c for c in second[0]} if second else {}
    rows = []
    for c in comparisons:
        row = [
            f"`d{c.name}`",
            checked(c.shape_hand, against=tuple(shapes[c.name])),
            checked(c.shapes_match, against=c.shape_engine == tuple(shapes[c.name]), shown_as=_tick),
            checked(c.exact, against=bit_equal_expected[c.name], shown_as=yes_no),
            checked(c.approximate, against=approximate_expected[c.name], shown_as=yes_no),
        ]
        shown = c
        if second:
            shown = other[c.name]
            assert shown.approximate and shown.shapes_match, shown
            row.append(checked(shown.exact, against=second[1][c.name], shown_as=yes_no))
        # The largest difference: zero within the closeness tolerance (a claim that can fail).
        tolerance = APPROX_ATOL + APPROX_RTOL * shown.scale
        row.append(checked(shown.max_abs_diff, against=0.0, atol=tolerance, shown_as=_diff_text))
        rows.append(row)
    return rows


def comparison_table(
    comparisons: list[Comparison],
    shapes: Mapping[str, tuple[int, ...]],
    approximate_expected: Mapping[str, bool],
    bit_equal_expected: Mapping[str, bool],
    batch_size: int,
    second: tuple[int, list[Comparison], Mapping[str, bool]] | None = None,
) -> Rendered:
    """The hand-vs-engine Markdown table (`comparison_rows`): one row per gradient at
    `batch_size`, and with `second = (batch size, comparisons, predictions)` a column saying which
    gradients are bit-equal at that other batch size; the last column is the largest difference
    at the second batch size when there is one (at the first it is zero wherever bits agree)."""
    headers: list[Any] = [
        "gradient",
        "shape",
        "shape check",
        text("bit-equal, $B = {b}$", b=given(batch_size)),
        "approximate",
    ]
    align = ["left", "right", "center", "center", "center", "center", "right"]
    if second:
        headers.append(text("bit-equal, $B = {b}$", b=given(second[0])))
        headers.append(text("max abs diff, $B = {b}$", b=given(second[0])))
    else:
        headers.append("max abs diff")
        align.pop()
    rows = comparison_rows(
        comparisons, shapes, approximate_expected, bit_equal_expected,
        (second[1], second[2]) if second else None,
    )
    return md_table(headers, rows, align=align)


def _code_list(names: list[str]) -> str:
    return ", ".join(f"`d{name}`" for name in names) if names else "none"


def comparison_summary(
    comparisons: list[Comparison],
    approximate_expected: Mapping[str, bool],
    bit_equal_expected: Mapping[str, bool],
    batch_size: int,
    engine: str | None = None,
    second: tuple[int, list[Comparison], Mapping[str, bool]] | None = None,
) -> Rendered:
    """The sentence under a hand-vs-engine table: how many gradients agree (checked against how
    many central differences confirmed), the tolerance (with `engine` named when given), and which
    are bit-equal at each batch size (counts checked against the predictions)."""
    agree = f"agree with `{engine}` to" if engine else "agree to"

    def bit_equal(batch: int, rows: list[Comparison], expected: Mapping[str, bool]) -> Rendered:
        exact = [c.name for c in rows if c.exact]
        names = f" ({_code_list(exact)})" if 0 < len(exact) < len(rows) else ""
        return text(
            "Bit-equal at $B = {b}$: {k} of {n}{names}.",
            b=given(batch),
            k=checked(len(exact), against=sum(bool(expected[c.name]) for c in rows)),
            n=checked(len(rows), against=len({c.name for c in rows} & set(expected))),
            names=names,
        )

    sentence = text(
        "All {n} gradients have the right shape and " + agree + " `rtol={rtol}, atol={atol}`. ",
        n=checked(len(comparisons), against=sum(bool(approximate_expected[c.name]) for c in comparisons)),
        rtol=given(APPROX_RTOL, shown_as=lambda v: f"{v:g}"),
        atol=given(APPROX_ATOL, shown_as=lambda v: f"{v:g}"),
    ) + bit_equal(batch_size, comparisons, bit_equal_expected)
    if second:
        sentence = sentence + " " + bit_equal(*second)
    return sentence

