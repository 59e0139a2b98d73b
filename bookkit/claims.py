"""Printed means asserted: every number, count or yes/no a snippet prints carries its check.

A value reaches a page in one of three ways, and each has a type here:

- `checked(value, against=...)`: a result the snippet computed, compared (shape first, then
  values, exactly unless a tolerance is given) with an *independent* computation before it can
  be shown. `against` must be another computation: an oracle (finite differences, a closed
  form, a count made another way), never the same expression again.
- `given(value)`: an input the snippet chose (a batch size, a seed, a step size). It is a
  definition, not a claim, so it needs no check; it is still marked, so that a reader of the
  snippet sees which numbers are inputs.
- `Rendered`: text that a bookkit helper produced and vouches for: a table whose every claim
  cell is checked or given, a sentence made by `text`, a derivation whose lines were evaluated,
  engine source read from its file, a diagram or state table recorded from the engine.

Everything else a snippet prints is plain text, and plain text may not contain a claim: a
number (outside identifiers such as `float64`, single digits in math, ordinals that start a
line, and code spans that hold code rather than a value) or a `yes`/`no`/`True`/`False` table
cell. `guard_printed` enforces that; the mkdocs hook applies it to every `print` of every
executed block (so a missing check fails `mkdocs build --strict`), and `python -m
bookkit.run_snippet` applies it when the tests run a snippet on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _stats


class UncheckedClaim(AssertionError):
    """Plain text that states a number or a yes/no without a check."""


class Rendered(str):
    """Text a bookkit helper vouches for. Joining or adding plain text to it checks that text."""

    __slots__ = ()

    def __add__(self, other: str) -> Rendered:
        return Rendered(str.__add__(self, vouch(other)))

    def __radd__(self, other: str) -> Rendered:
        return Rendered(str.__add__(vouch(other), self))

    def join(self, parts: Iterable[str]) -> Rendered:  # type: ignore[override]
        return Rendered(str.join(vouch(self), [vouch(part) for part in parts]))


@dataclass(frozen=True)
class Checked:
    """A computed value that equalled an independent computation (see `checked`)."""

    value: Any
    shown_as: Callable[[Any], str] | None = None

    def __format__(self, spec: str) -> str:
        raise TypeError(
            "a checked value cannot go into an f-string, which would drop its check: "
            "use bookkit.text('... {name} ...', name=checked_value) or a bookkit formatter"
        )


@dataclass(frozen=True)
class Given:
    """An input the snippet chose; printed as it is, not a claim about a result."""

    value: Any
    shown_as: Callable[[Any], str] | None = None

    def __format__(self, spec: str) -> str:
        raise TypeError("use bookkit.text('... {name} ...', name=given(value)) to print a given value")


def yes_no(flag: Any, no: str = "no") -> str:
    """`yes` for a true flag, `no` (or the text given) for a false one; for `shown_as=`."""
    return "yes" if bool(flag) else no


def _same_object(value: Any, against: Any) -> bool:
    # Small ints, bools, None, interned strings and constant tuples (`()`) are shared objects in
    # CPython: equal values computed two ways may be one object. Anything else being the very
    # same object means the "independent" computation is the value itself.
    if isinstance(value, bool | int | float | str | bytes | tuple | frozenset | type(None) | np.generic):
        return False
    return value is against


def checked(
    value: Any,
    against: Any,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    shown_as: Callable[[Any], str] | None = None,
) -> Checked:
    """Compare `value` with `against` (another computation of it), then return it for printing.

    Arrays and numbers: the shapes must match first (broadcasting would let `(3,)` pass for
    `(2, 3)`), then the values, exactly by default, or within `rtol` / `atol`
    (`|value - against| <= atol + rtol |against|`). Anything else (strings, tuples of names,
    booleans) must be equal. `shown_as` turns the value into the text the page shows
    (`yes_no` for a flag); without it the formatter that prints the value decides.

    Raises `AssertionError` naming both values when they differ, and when `against` is the
    very object `value` is (a comparison with itself, which cannot fail).
    """
    if _same_object(value, against):
        raise AssertionError("checked(value, against=...) was given the same object twice: it cannot fail")
    if isinstance(value, Checked | Given):
        value = value.value
    if isinstance(against, Checked | Given):
        against = against.value
    if _is_numeric(value) and _is_numeric(against):
        actual, expected = np.asarray(value), np.asarray(against)
        if actual.shape != expected.shape:
            raise AssertionError(f"checked: shape {actual.shape} differs from expected {expected.shape}")
        if rtol == 0.0 and atol == 0.0:
            if not np.array_equal(actual, expected, equal_nan=actual.dtype.kind in "fc"):
                raise AssertionError(f"checked: {value!r} is not exactly {against!r}")
        else:
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg="checked")
    elif value != against:
        raise AssertionError(f"checked: {value!r} differs from {against!r}")
    _stats.count("printed_values_checked")
    return Checked(value, shown_as)


def given(value: Any, shown_as: Callable[[Any], str] | None = None) -> Given:
    """Mark `value` as an input the snippet chose, so that it may be printed without a check."""
    return Given(value, shown_as)


def _is_numeric(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return True
    if isinstance(value, int | float | complex | np.number):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biufc"
    if isinstance(value, list | tuple) and value:
        try:
            return np.asarray(value).dtype.kind in "biufc"
        except (ValueError, TypeError):
            return False
    return False


# --- Which plain text states a claim ----------------------------------------------------------

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.DOTALL)
_CODE = re.compile(r"`[^`\n]+`")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)|\b(?:href|src|id|class)=\"[^\"]*\"")
# A code span that holds a value (an array, a shape, a number, a flag) rather than code.
_VALUE_SPAN = re.compile(r"[-+\s\[\]().,0-9eEj]*\d[-+\s\[\]().,0-9eEj]*|True|False|nan|inf")
# A number that is not part of a name (float64, x1, W_2, size-1; e-5 in 1e-5 counts with its number).
_NUMBER = re.compile(r"(?<![\w.\-+\u2212])[-+\u2212]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?![\w])")
_ORDINAL = re.compile(r"(?m)^[ \t>]*(?:#+[ \t]*|\?\?\?\+?[ \t]+\w+[ \t]+\"|[-*][ \t]+)?\d+[.)](?=\s)")
_MATH_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?|\d*\.\d+")
_FLAG_CELL = re.compile(r"^\s*(?:yes|no|true|false|✓|✗)\b", re.IGNORECASE)


def claims_in(text: str) -> list[str]:
    """The claims (numbers) in plain text, in order; empty when the text states none.

    Not claims: numbers inside names (`float64`, `x_1`), link targets and HTML attributes,
    ordinals at the start of a line (`1.`, `## 2.`), code spans holding code rather than a value
    (`` `x[0]` `` is code, `` `(3,)` `` is a value), and single digits inside math (`$x^2$`,
    `$\\frac{1}{n}$`: formulas, whose content derivations check; `$0.25$` or `$32$` is a claim).
    """
    found: list[str] = []
    text = _LINK_TARGET.sub(" ", text)
    text = _ORDINAL.sub(" ", text)

    def math(match: re.Match[str]) -> str:
        for number in _MATH_NUMBER.findall(match.group(0)):
            if len(number.replace(".", "")) > 1 or "." in number:
                found.append(number)
        return " "

    def code(match: re.Match[str]) -> str:
        inner = match.group(0)[1:-1].strip()
        if _VALUE_SPAN.fullmatch(inner):
            found.append(match.group(0))
        return " "

    text = _MATH.sub(math, text)
    text = _CODE.sub(code, text)
    found.extend(_NUMBER.findall(text))
    return found


def vouch(text: Any, where: str = "printed text") -> Rendered:
    """`text` as `Rendered`: itself if a helper already vouched for it, else after checking that
    it states no claim (`claims_in`). Raises `UncheckedClaim` naming the first claims."""
    if isinstance(text, Rendered):
        return text
    if isinstance(text, Checked | Given):
        raise TypeError(f"{where}: format a checked or given value with a bookkit helper before printing it")
    text = str(text)
    claims = claims_in(text)
    if claims:
        shown = ", ".join(repr(claim) for claim in claims[:3])
        excerpt = text.strip().replace("\n", " ")[:160]
        raise UncheckedClaim(
            f"{where} states {len(claims)} value(s) without a check ({shown}) in: {excerpt!r}. "
            "Print values through bookkit: checked(value, against=independent) or given(input) "
            "inside bookkit.text / md_table / a formatter."
        )
    return Rendered(text)


def guard_printed(*texts: Any) -> None:
    """What a snippet's `print` checks before it writes: every argument is vouched for."""
    for text in texts:
        vouch(text, where="print")


def shown_value(item: Checked | Given, format_value: Callable[[Any], str]) -> str:
    """The text of a checked or given value: its `shown_as`, or `format_value` of the value."""
    return item.shown_as(item.value) if item.shown_as else format_value(item.value)


def is_flag_cell(text: str) -> bool:
    """A table cell that answers yes or no (`yes`, `no (…)`, `True`, `✓`)."""
    return bool(_FLAG_CELL.match(text))
