"""Text for pages: arrays, shapes, Markdown tables, LaTeX matrices and collapsible blocks.

Every function here returns a string and has no side effect, so a snippet prints exactly what
the page shows, and two runs print the same bytes.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .claims import Checked, Given, Rendered, UncheckedClaim, claims_in, is_flag_cell, shown_value, vouch

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


def _fmt_number(value: Any, precision: int = 4) -> str:
    """One number as short text: integers as `3`, floats rounded to `precision` decimals with
    trailing zeros dropped but at least one decimal (`0.5`, `2.0`), complex as `1.0+2.0j`."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ValueError(f"fmt_number expects a scalar, got shape {_fmt_shape(value.shape)}")
        value = value.item()
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, complex | np.complexfloating):
        value = complex(value)
        real = _fmt_number(value.real, precision)
        imag = _fmt_number(abs(value.imag), precision)
        sign = "-" if value.imag < 0 else "+"
        return f"{real}{sign}{imag}j"
    number = float(value) + 0.0
    if np.isnan(number):
        return "nan"
    if np.isinf(number):
        return "inf" if number > 0 else "-inf"
    text = np.format_float_positional(number, precision=precision, unique=True, trim="0")
    return "0.0" if text in ("-0.0", "-0") else text


def _fmt_array(x: Any, precision: int = 4) -> str:
    """NumPy-style text of an array or a scalar (`[[1. 2.]\\n [3. 4.]]`, `0.5`), with fixed
    print options so the text is the same on every run and machine."""
    if np.isscalar(x) or (isinstance(x, np.ndarray) and x.ndim == 0):
        return _fmt_number(x, precision)
    a = _without_negative_zero(np.asarray(x), precision)
    with np.printoptions(precision=precision, **_PRINT_OPTIONS):
        return np.array2string(a)


def _fmt_array_inline(x: Any, precision: int = 4) -> str:
    """`fmt_array` on one line (rows separated by a space), for table cells."""
    return re.sub(r"\s*\n\s*", " ", _fmt_array(x, precision))


def _fmt_shape(shape: Any) -> str:
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
    if isinstance(value, Checked | Given):
        text = shown_value(value, lambda v: _cell_text(v, precision))
        return text
    if value is None:
        return "—"
    if isinstance(value, str):
        text = value
    elif isinstance(value, np.ndarray | np.generic | float | int | complex):
        text = f"`{_fmt_array_inline(value, precision)}`"
    elif isinstance(value, tuple) and all(isinstance(v, int | np.integer) for v in value):
        text = f"`{_fmt_shape(value)}`"
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


def _unchecked_cell_problem(value: Any) -> str | None:
    """Why a cell may not be printed as it is, or None if it may."""
    if isinstance(value, Checked | Given | Rendered):
        return None
    if value is None:
        return None
    if isinstance(value, bool | np.bool_):
        return "a flag without a check"
    if isinstance(value, np.ndarray | np.generic | float | int | complex) or (
        isinstance(value, tuple) and value and all(isinstance(v, int | np.integer) for v in value)
    ):
        return "a value without a check"
    text = str(value)
    if is_flag_cell(text):
        return "a yes/no without a check"
    claims = claims_in(text)
    if claims:
        return f"{claims[0]!r} without a check"
    return None


def _render_table(
    headers: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    align: Sequence[str | None] | None,
    precision: int,
) -> Rendered:
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
    return Rendered("\n".join(lines) + "\n")


def md_table(
    headers: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    align: Sequence[str | None] | None = None,
    precision: int = 4,
) -> Rendered:
    """A Markdown table whose every claim carries its check.

    Cells may be `checked(...)` values (a result compared with an independent computation),
    `given(...)` values (inputs the snippet chose), text a bookkit helper rendered, `None` (—),
    or plain text that states no claim (names, code, words). A plain number, array, shape or
    flag, a `yes`/`no` cell, or plain text holding a number raises `UncheckedClaim`, naming the
    column and row. In a column where any cell is checked, every cell must be checked or given
    (a `—` there is a claim too: that the thing is absent).

    Checked and given cells show as their `shown_as`, or as numbers and arrays in a code span,
    int tuples as shapes. `align` gives one of "left", "right", "center" (or "l", "r", "c", or
    None) per column.
    """
    rows = [list(row) for row in rows]
    headers = list(headers)
    for header in headers:
        vouch(header, where="a table header")
    claim_columns = {
        column for row in rows for column, cell in enumerate(row) if isinstance(cell, Checked)
    }
    for number, row in enumerate(rows):
        for column, cell in enumerate(row):
            header = headers[column] if column < len(headers) else column
            if column in claim_columns and not isinstance(cell, Checked | Given | Rendered):
                raise UncheckedClaim(
                    f"md_table column {header!r}, row {number}: the column is checked, "
                    f"but this cell ({cell!r}) is not; wrap it in checked(...) or given(...)"
                )
            problem = _unchecked_cell_problem(cell)
            if problem:
                raise UncheckedClaim(
                    f"md_table column {header!r}, row {number}: {problem} ({cell!r}); "
                    "wrap it in checked(value, against=independent) or given(input)"
                )
    return _render_table(headers, rows, align, precision)


def text(template: str, **fields: Any) -> Rendered:
    """A sentence (or paragraph) whose numbers all carry their checks.

    `template` uses `str.format` fields (`"{count} of {total} entries"`, `"{loss:.4f}"`); each
    field is a `checked(...)` or `given(...)` value, text a bookkit helper rendered, or plain
    text with no claim in it. The template's own words may state no number (`claims_in`).
    Numbers show as `fmt_number` would (or with the field's format spec), arrays in a code span
    on one line, int tuples as shapes in a code span.
    """
    parsed = list(string.Formatter().parse(template))
    # Each field stands in as a word, so that backticks or dollars around a field still pair.
    words = "".join(literal + ("value" if name is not None else "") for literal, name, _, _ in parsed)
    vouch(words, where="the words of text()")
    pieces: list[str] = []
    for literal, name, spec, conversion in parsed:
        pieces.append(literal)
        if name is None:
            continue
        if name not in fields:
            raise KeyError(f"text(): no value given for field {{{name}}}")
        if conversion:
            raise ValueError(f"text(): field {{{name}}} uses a !{conversion} conversion; format it instead")
        value = fields[name]
        if isinstance(value, Checked | Given):
            if value.shown_as:
                pieces.append(value.shown_as(value.value))
            elif spec:
                pieces.append(format(value.value, spec))
            else:
                pieces.append(_value_text(value.value))
        else:
            if spec:
                raise ValueError(f"text(): field {{{name}}} has a format spec but holds no checked value")
            pieces.append(vouch(value, where=f"text() field {{{name}}}"))
    unused = set(fields) - {name for _, name, _, _ in parsed if name is not None}
    if unused:
        raise KeyError(f"text(): fields given but not used: {sorted(unused)}")
    return Rendered("".join(pieces))


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, tuple) and all(isinstance(v, int | np.integer) for v in value):
        return f"`{_fmt_shape(value)}`"
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return f"`{_fmt_array_inline(value)}`"
    if isinstance(value, int | float | complex | np.number | np.ndarray):
        return _fmt_number(value)
    return str(value)


def _vouched_format(formatter: Any) -> Any:
    """A public formatter: vouched text for a checked or given value, plain text otherwise
    (which `print` refuses if it holds a number)."""

    def public(value: Any, *args: Any, **kwargs: Any) -> str:
        if isinstance(value, Checked | Given):
            return Rendered(formatter(value.value, *args, **kwargs))
        return formatter(value, *args, **kwargs)

    public.__name__ = formatter.__name__.lstrip("_")
    public.__qualname__ = public.__name__
    public.__doc__ = (formatter.__doc__ or "") + (
        "\n\n    Given a `checked(...)` or `given(...)` value, the text is vouched for (`Rendered`)"
        " and may be printed; given a plain value it is plain text, which `print` refuses if it"
        " states a number."
    )
    return public


# --- LaTeX ---------------------------------------------------------------------------------------


def _latex_number(value: Any, precision: int = 4) -> str:
    """One number for LaTeX: integral floats without decimals (`3`), others like `fmt_number`."""
    if isinstance(value, np.ndarray):
        value = value.item()
    if isinstance(value, complex | np.complexfloating):
        value = complex(value)
        if value.imag == 0:
            return _latex_number(value.real, precision)
        real = _latex_number(value.real, precision)
        imag = _latex_number(abs(value.imag), precision)
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
    return _fmt_number(value, precision)


def _latex_matrix(a: Any, precision: int = 4, vector: str = "column") -> str:
    """`\\begin{bmatrix}...\\end{bmatrix}` of a matrix, or of a vector (a column by default,
    `vector="row"` for a row); a scalar becomes just the number."""
    array = np.asarray(a)
    if array.ndim == 0:
        return _latex_number(array, precision)
    if array.ndim == 1:
        if vector not in ("column", "row"):
            raise ValueError(f"vector must be 'column' or 'row', not {vector!r}")
        array = array[:, None] if vector == "column" else array[None, :]
    if array.ndim != 2:
        raise ValueError(f"latex_matrix shows up to 2 dimensions, got shape {_fmt_shape(array)}")
    rows = [" & ".join(_latex_number(v, precision) for v in row) for row in array]
    return r"\begin{bmatrix}" + r" \\ ".join(rows) + r"\end{bmatrix}"


# --- Admonitions ----------------------------------------------------------------------------


def collapsible(title: str, body_markdown: str, kind: str = "question", open: bool = False) -> Rendered:
    """A pymdownx.details block (`??? question "title"`) holding `body_markdown`, indented so
    that tables, math and code inside it stay part of the block. The title and body are
    vouched for like printed text (a number in them must come from `text` or a table)."""
    vouch(title, where="collapsible title")
    vouch(body_markdown, where="collapsible body")
    marker = "???+" if open else "???"
    safe_title = title.replace('"', "&quot;")
    body = "\n".join(("    " + line) if line.strip() else "" for line in body_markdown.splitlines())
    return Rendered(f'{marker} {kind} "{safe_title}"\n\n{body}\n')


fmt_number = _vouched_format(_fmt_number)
fmt_array = _vouched_format(_fmt_array)
fmt_array_inline = _vouched_format(_fmt_array_inline)
fmt_shape = _vouched_format(_fmt_shape)
latex_number = _vouched_format(_latex_number)
latex_matrix = _vouched_format(_latex_matrix)


def observed(output: str, lang: str = "text") -> Rendered:
    """A fenced block of text that code produced when it ran (an exception's message, a
    program's printout), shown verbatim. It reports what happened rather than claiming a value,
    so the numbers in it need no check; the snippet must have produced `output` by running the
    code, never typed it."""
    if not isinstance(output, str) or isinstance(output, Rendered):
        raise TypeError("observed() shows the text a run produced, as a plain str")
    return Rendered(f"```{lang}\n{output.rstrip()}\n```\n")
