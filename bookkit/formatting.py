"""Text for pages: arrays, shapes, Markdown tables, LaTeX matrices and collapsible blocks.

Every function here returns a string and has no side effect, so a snippet prints exactly what
the page shows, and two runs print the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

# Fixed print options, so that a snippet that changed NumPy's global options (or a different
# NumPy default) cannot change what the book shows.
_PRINT_OPTIONS: dict[str, Any] = {
    "edgeitems": 3,
    "threshold": 1000,
    "floatmode": "maxprec",
    "linewidth": 75,
    "suppress": True,
    "nanstr": "nan",
    "infstr": "inf",
    "sign": "-",
    "legacy": False,
}


def _without_negative_zero(a: np.ndarray, precision: int | None = None) -> np.ndarray:
    # -0.0 and 0.0 are equal, but print differently; rounding noise should not decide which.
    # With `suppress`, a value that rounds to zero at `precision` prints as zero: give it the
    # sign of zero too, so that -1e-18 does not print as `-0.`.
    if np.issubdtype(a.dtype, np.floating):
        if precision is not None:
            a = np.where(np.abs(a) < 0.5 * 10.0**-precision, 0.0, a)
        return a + 0.0
    if np.issubdtype(a.dtype, np.complexfloating):
        if precision is not None:
            tiny = 0.5 * 10.0**-precision
            a = np.where(np.abs(a.real) < tiny, 0.0, a.real) + 1j * np.where(
                np.abs(a.imag) < tiny, 0.0, a.imag
            )
        return a + 0.0
    return a


def fmt_number(value: Any, precision: int = 4) -> str:
    """One number as short text: integers as `3`, floats rounded to `precision` decimals with
    trailing zeros dropped but at least one decimal (`0.5`, `2.0`), complex as `1.0+2.0j`."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ValueError(f"fmt_number expects a scalar, got shape {fmt_shape(value.shape)}")
        value = value.item()
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, complex | np.complexfloating):
        value = complex(value)
        real = fmt_number(value.real, precision)
        imag = fmt_number(abs(value.imag), precision)
        sign = "-" if value.imag < 0 else "+"
        return f"{real}{sign}{imag}j"
    number = float(value) + 0.0
    if np.isnan(number):
        return "nan"
    if np.isinf(number):
        return "inf" if number > 0 else "-inf"
    text = np.format_float_positional(number, precision=precision, unique=True, trim="0")
    return "0.0" if text in ("-0.0", "-0") else text


def fmt_array(x: Any, precision: int = 4) -> str:
    """NumPy-style text of an array or a scalar (`[[1. 2.]\\n [3. 4.]]`, `0.5`), with fixed
    print options so the text is the same on every run and machine."""
    if np.isscalar(x) or (isinstance(x, np.ndarray) and x.ndim == 0):
        return fmt_number(x, precision)
    a = _without_negative_zero(np.asarray(x), precision)
    with np.printoptions(precision=precision, **_PRINT_OPTIONS):
        return np.array2string(a)


def fmt_array_inline(x: Any, precision: int = 4) -> str:
    """`fmt_array` on one line (rows separated by a space), for table cells."""
    return re.sub(r"\s*\n\s*", " ", fmt_array(x, precision))


def fmt_shape(shape: Any) -> str:
    """A shape as NumPy prints it: `()`, `(3,)`, `(2, 3)`. Accepts a shape or an array."""
    if hasattr(shape, "shape") and not isinstance(shape, tuple):
        shape = shape.shape
    return str(tuple(int(size) for size in shape))


# --- Markdown tables ---------------------------------------------------------------------------

_ALIGN_RULES = {
    None: "---",
    "left": ":---",
    "l": ":---",
    "right": "---:",
    "r": "---:",
    "center": ":---:",
    "c": ":---:",
}
# Math and code spans inside a cell: a pipe there must not end the cell.
_CELL_SPANS = re.compile(r"(\$[^$]+\$|`[^`]+`)")


def _cell_text(value: Any, precision: int) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        text = value
    elif isinstance(value, np.ndarray | np.generic | float | int | complex):
        text = f"`{fmt_array_inline(value, precision)}`"
    elif isinstance(value, tuple) and all(isinstance(v, int | np.integer) for v in value):
        text = f"`{fmt_shape(value)}`"
    else:
        text = str(value)
    parts = _CELL_SPANS.split(text)
    for index, part in enumerate(parts):
        if index % 2 == 1 and part.startswith("$"):
            # KaTeX reads \vert as |; a backslash-escaped pipe would become \| (a double bar).
            parts[index] = part.replace(r"\|", r"\Vert{}").replace("|", r"\vert{}")
        elif index % 2 == 0:
            parts[index] = part.replace("|", r"\|")
    return "".join(parts).replace("\n", "<br>")


def md_table(
    headers: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    align: Sequence[str | None] | None = None,
    precision: int = 4,
) -> str:
    """A Markdown table. Cells may be strings (Markdown, `$LaTeX$`, `` `code` ``), numbers or
    arrays (shown with `fmt_array` in a code span), int tuples (shown as shapes) or None (—).

    `align` gives one of "left", "right", "center" (or "l", "r", "c", or None) per column.
    """
    header_cells = [_cell_text(h, precision) for h in headers]
    width = len(header_cells)
    if align is None:
        align = [None] * width
    if len(align) != width:
        raise ValueError(f"align has {len(align)} entries for {width} columns")
    lines = [
        "| " + " | ".join(header_cells) + " |",
        "| " + " | ".join(_ALIGN_RULES[a] for a in align) + " |",
    ]
    for number, row in enumerate(rows):
        cells = [_cell_text(cell, precision) for cell in row]
        if len(cells) != width:
            raise ValueError(f"row {number} has {len(cells)} cells for {width} columns")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --- LaTeX ---------------------------------------------------------------------------------------


def latex_number(value: Any, precision: int = 4) -> str:
    """One number for LaTeX: integral floats without decimals (`3`), others like `fmt_number`."""
    if isinstance(value, np.ndarray):
        value = value.item()
    if isinstance(value, complex | np.complexfloating):
        value = complex(value)
        if value.imag == 0:
            return latex_number(value.real, precision)
        real = latex_number(value.real, precision)
        imag = latex_number(abs(value.imag), precision)
        sign = "-" if value.imag < 0 else "+"
        return f"{real} {sign} {imag}i"
    if isinstance(value, float | np.floating):
        number = float(value)
        if np.isnan(number):
            return r"\text{nan}"
        if np.isinf(number):
            return r"\infty" if number > 0 else r"-\infty"
        rounded = round(number, precision)
        if rounded == int(rounded) and abs(rounded) < 1e15:
            return str(int(rounded))
    return fmt_number(value, precision)


def latex_matrix(a: Any, precision: int = 4, vector: str = "column") -> str:
    """`\\begin{bmatrix}...\\end{bmatrix}` of a matrix, or of a vector (a column by default,
    `vector="row"` for a row); a scalar becomes just the number."""
    array = np.asarray(a)
    if array.ndim == 0:
        return latex_number(array, precision)
    if array.ndim == 1:
        if vector not in ("column", "row"):
            raise ValueError(f"vector must be 'column' or 'row', not {vector!r}")
        array = array[:, None] if vector == "column" else array[None, :]
    if array.ndim != 2:
        raise ValueError(f"latex_matrix shows up to 2 dimensions, got shape {fmt_shape(array)}")
    rows = [" & ".join(latex_number(v, precision) for v in row) for row in array]
    return r"\begin{bmatrix}" + r" \\ ".join(rows) + r"\end{bmatrix}"


# --- Admonitions ----------------------------------------------------------------------------


def collapsible(title: str, body_markdown: str, kind: str = "question", open: bool = False) -> str:
    """A pymdownx.details block (`??? question "title"`) holding `body_markdown`, indented so
    that tables, math and code inside it stay part of the block."""
    marker = "???+" if open else "???"
    safe_title = title.replace('"', "&quot;")
    body = "\n".join(("    " + line) if line.strip() else "" for line in body_markdown.splitlines())
    return f'{marker} {kind} "{safe_title}"\n\n{body}\n'
