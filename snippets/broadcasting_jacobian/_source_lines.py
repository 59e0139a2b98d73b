"""Source locations for prose and tables, each found twice: by bookkit (inspect) and by `ast`.

A table that points at the engine's code states line numbers. `bookkit.source_location` and
`bookkit.source.source_line` read them through `inspect`; this module finds the same lines a
second way, by parsing the file with `ast` (a function's decorators, `def` and `end_lineno`) and
scanning its text, and returns them as checked values.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any

from bookkit import checked, text
from bookkit.source import REPO_ROOT, source_line, source_location


def _function_node(path: str, name: str) -> ast.FunctionDef:
    tree = ast.parse((REPO_ROOT / path).read_text(encoding="utf-8"))
    found = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
    ]
    if len(found) != 1:
        raise LookupError(f"{path} defines {name!r} {len(found)} times at module level")
    return found[0]


def _name(obj: Any) -> str:
    return getattr(inspect.unwrap(getattr(obj, "fun", obj)), "__name__", None) or obj.__name__


def _ast_span(path: str, name: str) -> tuple[int, int]:
    node = _function_node(path, name)
    first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
    return first, node.end_lineno


def lines_of(obj: Any) -> Any:
    """`` `path` lines first to last `` of a function, its numbers checked against `ast`."""
    path, first, last = source_location(obj)
    ast_first, ast_last = _ast_span(path, _name(obj))
    return text(
        "`{path}` lines {first} to {last}",
        path=path,
        first=checked(first, against=ast_first),
        last=checked(last, against=ast_last),
    )


def line_of(obj: Any, code: str) -> Any:
    """`` `path` line N `` of the one line of `obj` that starts with `code`, N checked by a scan
    of the file's text within the function's `ast` span."""
    path, line, _ = source_line(obj, r"^\s*" + re.escape(code))
    first, last = _ast_span(path, _name(obj))
    file_lines = Path(REPO_ROOT / path).read_text(encoding="utf-8").splitlines()
    scanned = [number for number in range(first, last + 1) if file_lines[number - 1].strip().startswith(code)]
    if len(scanned) != 1:
        raise LookupError(f"{len(scanned)} lines of {path} {first}-{last} start with {code!r}")
    return text("`{path}` line {line}", path=path, line=checked(line, against=scanned[0]))
