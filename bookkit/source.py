"""Live source of the engine: listings, locations, and a source map computed with `ast`.

Nothing here is typed by hand: a listing is read from the file the object was defined in,
and "called by" / "calls" come from scanning every `ad_core` module at build time.
"""

from __future__ import annotations

import ast
import functools
import html
import inspect
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .claims import Rendered, checked
from .formatting import _render_table, text

REPO_ROOT = Path(__file__).resolve().parent.parent
ENGINE_PACKAGE = "ad_core"
_MAX_NAMES_IN_CELL = 6
_EN_DASH = "\N{EN DASH}"  # line ranges are typeset with an en dash, as in print
MODULE_LEVEL = "<module>"  # the key suffix of a module's top-level statements


def _unwrapped(obj: Any) -> Any:
    """The function or class whose source defines `obj` (decorators and primitives peeled)."""
    obj = inspect.unwrap(obj)
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)):
        for attribute in ("fun", "func", "_fun"):
            inner = getattr(obj, attribute, None)
            if inner is not None and (inspect.isfunction(inner) or inspect.isclass(inner)):
                return inspect.unwrap(inner)
    if inspect.ismethod(obj):
        obj = obj.__func__
    if isinstance(obj, property) and obj.fget is not None:
        obj = obj.fget
    return obj


def _relative(path: str | Path) -> str:
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return resolved.as_posix()


def source_location(obj: Any) -> tuple[str, int, int]:
    """`(path relative to the repository, first line, last line)` of `obj`'s definition,
    decorators included (the lines `inspect.getsourcelines` reports). `obj` may also be an
    index key like `"ad_core.core:backward_pass"` for things not reachable as objects."""
    if isinstance(obj, str):
        definition = engine_index().definition(obj)
        return definition.path, definition.first_line, definition.last_line
    target = _unwrapped(obj)
    try:
        lines, first = inspect.getsourcelines(target)
        path = inspect.getsourcefile(target)
    except (TypeError, OSError) as error:
        raise TypeError(f"no source found for {obj!r}") from error
    if path is None:
        raise TypeError(f"no source file for {obj!r}")
    return _relative(path), first, first + len(lines) - 1



def _line_span(path: str, first: int, last: int) -> Rendered:
    if first == last:
        return text("`{path}` line {first}", path=path, first=first)
    return text("`{path}` lines {first}\u2013{last}", path=path, first=first, last=last)


def located(obj: Any) -> Rendered:
    """`path` lines `first` to `last` of an engine or snippet-module object, from
    `source_location`, each number checked against `inspect.getsourcelines` of the unwrapped
    function, for a theory ↔ source table."""
    import os

    path, first, last = source_location(obj)
    function = inspect.unwrap(getattr(obj, "fun", obj))
    lines, start = inspect.getsourcelines(function)
    where = os.path.relpath(inspect.getsourcefile(function), REPO_ROOT).replace(os.sep, "/")
    return _line_span(
        checked(path, against=where).value,
        checked(first, against=start),
        checked(last, against=start + len(lines) - 1),
    )


def section_location(path: str | Path, name: str) -> Rendered:
    """`path` lines `first` to `last`: the code lines of the ``--8<--`` section `name` of the
    file at `path` (absolute, or relative to the repository), the lines a page includes with
    `--8<-- "path:name"`. The markers are found in the file's lines and, independently, among
    its comment tokens; the two must give the same numbers."""
    import io
    import tokenize

    file = (REPO_ROOT / path).resolve()
    source = file.read_text(encoding="utf-8")
    marker = {"start": f"# --8<-- [start:{name}]", "end": f"# --8<-- [end:{name}]"}
    file_lines = [line.strip() for line in source.splitlines()]
    by_lines = {kind: file_lines.index(text_) + 1 for kind, text_ in marker.items()}
    comments = [
        token for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    by_tokens = {
        kind: next(token.start[0] for token in comments if token.string == text_)
        for kind, text_ in marker.items()
    }
    return _line_span(
        _relative(file),
        checked(by_lines["start"] + 1, against=by_tokens["start"] + 1),  # the line after the start marker
        checked(by_lines["end"] - 1, against=by_tokens["end"] - 1),  # the line before the end marker
    )


def source_line(obj: Any, pattern: str) -> tuple[str, int, str]:
    """`(path relative to the repository, file line number, stripped text)` of the one line of
    `obj`'s live source (as `source_location` delimits it) that the regular expression `pattern`
    matches (`re.search`). For a table that points at the line implementing an idea: the number
    is looked up, never typed. Raises `ValueError` unless exactly one line matches."""
    path, first, last = source_location(obj)
    lines = (REPO_ROOT / path).read_text(encoding="utf-8").splitlines()[first - 1 : last]
    matches = [first + offset for offset, line in enumerate(lines) if re.search(pattern, line)]
    if len(matches) != 1:
        raise ValueError(f"{len(matches)} lines of {path} lines {first}-{last} match {pattern!r}, expected 1")
    return path, matches[0], lines[matches[0] - first].strip()


def _symbol_name(obj: Any) -> str:
    if isinstance(obj, str):
        return obj.split(":", 1)[-1]
    target = _unwrapped(obj)
    return getattr(target, "__qualname__", getattr(target, "__name__", repr(target)))


def show_source(obj: Any, hl_lines: Iterable[int] = ()) -> str:
    """A caption (`` `ad_core/core.py` · `backward_pass` · lines 70-98 ``, with an en dash) and a fenced
    python block of the live source of `obj`, numbered with the file's own line numbers.

    `hl_lines` are file line numbers to highlight; they must lie inside the listing.
    """
    path, first, last = source_location(obj)
    file_lines = (
        (REPO_ROOT / path if not Path(path).is_absolute() else Path(path))
        .read_text(encoding="utf-8")
        .splitlines()
    )
    code = textwrap.dedent("\n".join(file_lines[first - 1 : last]))
    options = f'linenums="{first}"'
    fit = listing_class(code)
    highlighted = sorted(set(hl_lines))
    if highlighted:
        outside = [line for line in highlighted if not first <= line <= last]
        if outside:
            raise ValueError(f"lines {outside} are outside {path} lines {first}{_EN_DASH}{last}")
        options += ' hl_lines="' + " ".join(str(line - first + 1) for line in highlighted) + '"'
    caption = f"`{path}` · `{_symbol_name(obj)}` · lines {first}{_EN_DASH}{last}"
    opening = f"```{{.python .{fit} {options}}}" if fit else f"```python {options}"
    return Rendered(f"{caption}\n\n{opening}\n{code}\n```\n")


# Listings of engine source are shown whole, lines unbroken (the file's line numbers must stay
# beside their lines). A listing whose longest line is wider than the column at the normal
# code size gets a class `bk-cols-<n>` (n: that length rounded up to a multiple of 5); book.css
# scales such a listing's font to the column's width (a container query), so it fits its box
# down to a minimum size, and scrolls only below that (phones).
_FITS_WITHOUT_SCALING = 80
_WIDEST_CLASS = 120


def listing_class(code: str) -> str | None:
    """The `bk-cols-<n>` class for a listing of `code`, or None when it fits as it is."""
    longest = max((len(line.rstrip()) for line in code.splitlines()), default=0)
    if longest <= _FITS_WITHOUT_SCALING:
        return None
    return f"bk-cols-{min(-(-longest // 5) * 5, _WIDEST_CLASS)}"



def show_excerpt(obj: Any, start: str, end: str | None = None, *, full_listing: str,
                 hl_lines: Iterable[int] = ()) -> str:
    """The lines of `obj`'s live source from the one matching `start` to the one matching `end`
    (regular expressions, as in `source_line`; `end=None` is the start line alone), numbered with
    the file's own line numbers, and a caption that links to the page listing `obj` in full.

    An engine function is listed in full on one page only (`tests/snippets/test_every_page.py`
    counts the full listings); elsewhere a page shows the lines it discusses with this."""
    path, first, last = source_location(obj)
    _, from_line, _ = source_line(obj, start)
    _, to_line, _ = source_line(obj, end) if end is not None else (path, from_line, "")
    if to_line < from_line:
        raise ValueError(f"{end!r} matches line {to_line}, above {start!r} at line {from_line}")
    file_lines = (REPO_ROOT / path).read_text(encoding="utf-8").splitlines()
    code = textwrap.dedent("\n".join(file_lines[from_line - 1 : to_line]))
    options = f'linenums="{from_line}"'
    highlighted = sorted(set(hl_lines))
    if highlighted:
        outside = [line for line in highlighted if not from_line <= line <= to_line]
        if outside:
            raise ValueError(f"lines {outside} are outside {path} lines {from_line}{_EN_DASH}{to_line}")
        options += ' hl_lines="' + " ".join(str(line - from_line + 1) for line in highlighted) + '"'
    span = f"line {from_line}" if from_line == to_line else f"lines {from_line}{_EN_DASH}{to_line}"
    caption = (f"`{path}` · `{_symbol_name(obj)}` · {span} of {first}{_EN_DASH}{last} "
               f"(listed in full in {full_listing})")
    fit = listing_class(code)
    opening = f"```{{.python .{fit} {options}}}" if fit else f"```python {options}"
    return Rendered(f"{caption}\n\n{opening}\n{code}\n```\n")


@dataclass(frozen=True)
class RuleRegistration:
    """One top-level `defvjp(<primitive>, ...)` statement of a rules module, as the file has it."""

    path: str  # the rules module's file, relative to the repository
    primitive: str  # as the statement spells it: "anp.exp"
    first_line: int  # the file line number of `defvjp(`
    lines: tuple[str, ...]  # the statement's lines, up to where its parentheses balance

    @property
    def text(self) -> str:
        """The statement on one line (its lines joined by spaces), for checks on a rule's body."""
        return " ".join(self.lines)


def rule_registrations(module: ModuleType, primitives: Sequence[str]) -> list[RuleRegistration]:
    """The `defvjp(<primitive>, ...)` statement of each of `primitives` in `module`'s live source,
    in the order asked. A primitive is spelled as the module spells it (`"anp.exp"`); its
    statement starts a line and continues on the next lines until the parentheses balance.
    Raises `ValueError` unless each primitive is registered exactly once.
    """
    path = _relative(inspect.getsourcefile(module))
    source_lines = inspect.getsource(module).splitlines()
    found = []
    for primitive in primitives:
        starts = [
            number
            for number, line in enumerate(source_lines, start=1)
            if line.startswith(f"defvjp({primitive},")
        ]
        if len(starts) != 1:
            raise ValueError(f"{path} registers {primitive} {len(starts)} times, expected once")
        first = starts[0]
        block = [source_lines[first - 1]]
        while sum(text.count("(") - text.count(")") for text in block) > 0:
            block.append(source_lines[first - 1 + len(block)])
        found.append(RuleRegistration(path, primitive, first, tuple(block)))
    return found


def rules_listing(registrations: Iterable[RuleRegistration]) -> str:
    """A fenced python block of `registrations`, each line prefixed with its file line number
    (right-aligned in four columns, then two spaces), in the order given."""
    numbered = [
        f"{rule.first_line + offset:>4}  {text}"
        for rule in registrations
        for offset, text in enumerate(rule.lines)
    ]
    fit = listing_class("\n".join(numbered))
    return Rendered("\n".join([f"```{{.python .{fit}}}" if fit else "```python", *numbered, "```"]))


# --- The engine's call index ----------------------------------------------------------------


@dataclass(frozen=True)
class Definition:
    """One top-level function, class or method of the engine, as found by `ast`."""

    key: str  # "ad_core.core:backward_pass", "ad_core.core:VJPNode.initialize_root"
    path: str
    first_line: int  # decorators included, like inspect.getsourcelines
    last_line: int
    node: ast.AST

    @property
    def short_name(self) -> str:
        module, qualname = self.key.split(":", 1)
        package_prefix = ENGINE_PACKAGE + "."
        module = module[len(package_prefix) :] if module.startswith(package_prefix) else module
        if qualname == MODULE_LEVEL:
            return f"{module} (module level)"
        return f"{module}.{qualname}"


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _referenced_nodes(node: ast.AST) -> Iterable[ast.AST]:
    """The parts of a definition whose names are used when it runs: decorators, default
    values and bodies (annotations are left out: they name types, they call nothing)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        yield from node.decorator_list
        yield from node.args.defaults
        yield from (d for d in node.args.kw_defaults if d is not None)
        for statement in node.body:
            yield from ast.walk(statement)
    elif isinstance(node, ast.Module):
        for statement in node.body:
            yield from ast.walk(statement)
    elif isinstance(node, ast.ClassDef):
        yield from node.decorator_list
        yield from node.bases
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                continue  # methods are definitions of their own
            yield from ast.walk(statement)


def _local_names(node: ast.AST) -> set[str]:
    """Names a function binds itself: its parameters and the names it assigns."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return set()
    arguments = node.args
    names = {
        argument.arg
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    }
    names.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    for statement in node.body:
        for inner in ast.walk(statement):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                names.add(inner.id)
    return names


# Modules that watch the engine rather than use it: the recorder names engine functions to
# recognise them while they run, and a "called by" column that listed it would mislead.
OBSERVERS = {ENGINE_PACKAGE + ".recorder"}


class EngineIndex:
    """Every definition in the engine's modules and which of them refer to which."""

    def __init__(self, package_dir: Path) -> None:
        self.package_dir = package_dir
        root = package_dir.parent
        self.definitions: dict[str, Definition] = {}
        self._modules: dict[str, tuple[ast.Module, bool]] = {}
        for path in sorted(package_dir.rglob("*.py")):
            module = _module_name(path, root)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            self._modules[module] = (tree, path.name == "__init__.py")
            relative = _relative(path)
            for statement in tree.body:
                self._add_definition(module, relative, statement, prefix="")
            self._add_module_level(module, relative, tree)
        self._names = {module: self._module_names(module) for module in self._modules}
        self.calls: dict[str, list[str]] = {key: [] for key in self.definitions}
        for key, definition in self.definitions.items():
            self.calls[key] = self._references(key, definition)
        self.called_by: dict[str, list[str]] = {key: [] for key in self.definitions}
        for caller, callees in self.calls.items():
            if caller.split(":", 1)[0] in OBSERVERS:
                continue
            for callee in callees:
                self.called_by[callee].append(caller)

    def _add_definition(self, module: str, path: str, statement: ast.stmt, prefix: str) -> None:
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return
        first = min([statement.lineno] + [d.lineno for d in statement.decorator_list])
        key = f"{module}:{prefix}{statement.name}"
        last = statement.end_lineno or statement.lineno
        self.definitions[key] = Definition(key, path, first, last, statement)
        if isinstance(statement, ast.ClassDef) and not prefix:
            for inner in statement.body:
                self._add_definition(module, path, inner, prefix=f"{statement.name}.")

    def _add_module_level(self, module: str, path: str, tree: ast.Module) -> None:
        """The statements outside any definition (rule registrations such as
        `defvjp(anp.add, lambda ...)`) count as one caller, named after the module."""
        statements = [
            statement for statement in tree.body
            if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
        if statements:
            body = ast.Module(body=statements, type_ignores=[])
            last = max(statement.end_lineno or statement.lineno for statement in statements)
            key = f"{module}:{MODULE_LEVEL}"
            self.definitions[key] = Definition(key, path, 1, last, body)

    def _module_names(self, module: str) -> dict[str, tuple[str, str]]:
        """Top-level names of `module`: name → ("def", key) | ("module", name) |
        ("import", "module:name") for a name imported from another engine module."""
        tree, is_package = self._modules[module]
        names: dict[str, tuple[str, str]] = {}
        for statement in tree.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names[statement.name] = ("def", f"{module}:{statement.name}")
            elif isinstance(statement, ast.ImportFrom):
                source = _resolve_relative(module, is_package, statement.level, statement.module)
                for alias in statement.names:
                    local = alias.asname or alias.name
                    if f"{source}.{alias.name}" in self._modules:
                        names[local] = ("module", f"{source}.{alias.name}")
                    elif source in self._modules:
                        names[local] = ("import", f"{source}:{alias.name}")
            elif isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.name in self._modules:
                        names[alias.asname or alias.name] = ("module", alias.name)
        return names

    def resolve(self, module: str, name: str, _seen: frozenset[str] = frozenset()) -> str | None:
        """The definition key that `name` means at the top level of `module`, following
        re-exports (`from .core import backward_pass`), or None if it is not engine code."""
        entry = self._names.get(module, {}).get(name)
        if entry is None:
            return None
        kind, target = entry
        if kind == "def":
            return target
        if kind == "import":
            source, imported = target.split(":", 1)
            if target in self.definitions:
                return target
            if target in _seen:
                return None
            return self.resolve(source, imported, _seen | {target})
        return None

    def _module_alias(self, module: str, name: str) -> str | None:
        entry = self._names.get(module, {}).get(name)
        return entry[1] if entry and entry[0] == "module" else None

    def _references(self, key: str, definition: Definition) -> list[str]:
        module, qualname = key.split(":", 1)
        owner_class = qualname.split(".")[0] if "." in qualname else None
        local_names = _local_names(definition.node)
        found: list[str] = []
        for node in _referenced_nodes(definition.node):
            target: str | None = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                # A parameter or local variable that happens to share a function's name
                # (`trace`, `node`) is not a call of that function.
                target = None if node.id in local_names else self.resolve(module, node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                base = node.value.id
                alias = self._module_alias(module, base)
                if alias is not None:
                    target = self.resolve(alias, node.attr)
                elif base in ("self", "cls") and owner_class is not None:
                    candidate = f"{module}:{owner_class}.{node.attr}"
                    target = candidate if candidate in self.definitions else None
                else:
                    owner = self.resolve(module, base)
                    candidate = f"{owner}.{node.attr}" if owner else None
                    target = candidate if candidate in self.definitions else None
            if target is not None and target != key and target not in found:
                found.append(target)
        return found

    def definition(self, key: str) -> Definition:
        """The definition for an index key (`"ad_core.core:backward_pass"`)."""
        try:
            return self.definitions[key]
        except KeyError:
            raise KeyError(f"{key!r} is not a definition in {self.package_dir}") from None

    def key_of(self, obj: Any) -> str:
        """The index key of a live engine object, found by its file and first line."""
        if isinstance(obj, str):
            return self.definition(obj).key
        path, first, _ = source_location(obj)
        for key, definition in self.definitions.items():
            if definition.path == path and definition.first_line == first:
                return key
        raise KeyError(f"{_symbol_name(obj)} ({path}:{first}) is not a top-level engine definition")


@functools.cache
def _cached_index(package_dir: str, stamp: tuple[tuple[str, int], ...]) -> EngineIndex:
    return EngineIndex(Path(package_dir))


def engine_index(package_dir: Path | None = None) -> EngineIndex:
    """The call index of the engine's current source (rebuilt when a module changes)."""
    directory = (package_dir or REPO_ROOT / ENGINE_PACKAGE).resolve()
    stamp = tuple((str(path), path.stat().st_mtime_ns) for path in sorted(directory.rglob("*.py")))
    return _cached_index(str(directory), stamp)


def breakable_code(name: str) -> str:
    """`name` as inline code that a narrow table column may break after a `.`, `/` or `_`
    (`<wbr>`, which adds no character: copied or read, the name is whole)."""
    escaped = html.escape(name, quote=False)
    breakable = re.sub(r"([./_])(?=[^./_])", r"\1<wbr>", escaped)
    # Markdown still reads emphasis between raw HTML tags: `__init__` would become a bold
    # "init". A backslash escape keeps each underscore literal.
    return "<code>" + breakable.replace("_", "\\_") + "</code>"


def _names_cell(keys: Sequence[str], index: EngineIndex) -> str:
    if not keys:
        return "—"
    names = sorted(index.definitions[key].short_name for key in keys)
    shown = ", ".join(breakable_code(name) for name in names[:_MAX_NAMES_IN_CELL])
    hidden = len(names) - _MAX_NAMES_IN_CELL
    return shown + (f" and {hidden} more" if hidden > 0 else "")


def source_map(rows: Iterable[tuple[Any, str, str]]) -> str:
    """A source-map table: for each `(obj, "input → output", "role")` row, the file, symbol,
    lines, "called by" and "calls" columns are computed from the engine's code with `ast`;
    the last two columns are the text you give. Paths and names may break after a `.`, `/` or `_`
    so that the seven columns fit the page's column."""
    index = engine_index()
    table_rows = []
    for obj, in_out, role in rows:
        key = index.key_of(obj)
        definition = index.definitions[key]
        table_rows.append(
            [
                breakable_code(definition.path),
                breakable_code(key.split(":", 1)[1]),
                f"{definition.first_line}{_EN_DASH}{definition.last_line}",
                _names_cell(index.called_by[key], index),
                _names_cell(index.calls[key], index),
                in_out,
                role,
            ]
        )
    headers = ["file", "symbol", "lines", "called by", "calls", "input → output", "role"]
    # Read off the engine's files, like a listing: the line numbers are where the code is.
    return _render_table(headers, table_rows, None, 4)
