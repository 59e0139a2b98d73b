"""MkDocs hooks (`hooks: [bookkit/hooks.py]` in mkdocs.yml).

1. A failing snippet's warning names the page, the snippet file and the line in that file.
   markdown-exec only names its block (`<code block: n3>`), so this module remembers the page
   (`on_page_markdown`), finds which `--8<--` includes make up each executed fence, and
   prefixes markdown-exec's log records through a logging filter.
2. Links that a snippet prints (`[term](../reference/glossary.md#term)`) reach the page
   through markdown-exec's own Markdown converter, which MkDocs never sees: they would stay
   `.md` links, broken and unchecked. `on_page_content` converts and validates them with
   MkDocs' own link logic, and registers their anchors for MkDocs' anchor validation; ids
   that snippets print become known anchors of their page.
3. A block that runs one snippet file gets that file's path as `__file__` (markdown-exec gives
   a block none), so a snippet finds the files beside it with `Path(__file__).with_name(...)`
   the same way in the build and standalone.
4. It counts what this build executed: code blocks, distinct snippet files, and `assert`
   statements. Asserts are counted as they execute (a line trace limited to code-block frames,
   so an assert in a loop counts once per iteration) and also statically (`ast`), and the
   home page gets a build stamp with these numbers in place of `STAMP_PLACEHOLDER`.
5. It keeps what each executed snippet printed, and when `BOOK_SNIPPET_OUTPUTS` names a file
   (`bookkit.testing.mkdocs_build` sets it), writes there `{include ("snippets/x.py", or
   "snippets/x.py:section"): [the output of each fence that ran it]}` as JSON: the tests read
   the build's own executions of the snippets instead of running every snippet again.
6. After the build, it writes the subset of a CJK font that holds exactly the Chinese
   characters the pages use (`bookkit/cjk_font.py`).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

# During `mkdocs serve` this module is loaded afresh for every rebuild: first drop the engine
# and bookkit from sys.modules if their files changed, so the imports below read them anew.
_serve_cache = sys.modules.get("bookkit.exec_cache")
if _serve_cache is not None and _serve_cache.ENABLED:
    _serve_cache.forget_changed_sources()

from bookkit import _stats, exec_cache  # noqa: E402
from bookkit.claims import guard_printed  # noqa: E402

log = logging.getLogger("mkdocs.hooks.bookkit")

STAMP_PLACEHOLDER = "<!-- bookkit:build-stamp -->"
STAMP_PAGE = "index.md"

_OPENING_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*\{?\.?python\b(?P<opts>.*)$")
_EXEC_OPTION = re.compile(r"""\bexec\s*=\s*["']?(?:on|1|true|yes)\b""", re.IGNORECASE)
_INCLUDE = re.compile(r"""^[ \t]*-{1,}8<-{1,}[ \t]+(?P<quote>["']?)(?P<spec>[^"'\s]+)(?P=quote)[ \t]*$""")
_SECTION_MARKER = re.compile(
    r"-{1,}8<-{1,}[ \t]+\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*(?P<name>[a-z][-_0-9a-z]*)[ \t]*\]",
    re.IGNORECASE,
)
_BLOCK_FRAME = re.compile(r'File "(?P<block><code block: [^"]+>)", line (?P<line>\d+)')


@dataclass
class _Fence:
    """One executed fence of a page: each code line with the file and line it came from."""

    page: str
    page_line: int
    origins: list[tuple[str, int]] = field(default_factory=list)  # (file, line) per code line
    texts: list[str] = field(default_factory=list)
    used: bool = False
    includes: list[str] = field(default_factory=list)  # the `--8<--` specs, as the page writes them

    @property
    def snippet_files(self) -> list[str]:
        files = []
        for path, _ in self.origins:
            if path != self.page and path not in files:
                files.append(path)
        return files

    def normalized(self) -> list[str]:
        return _normalize(self.texts)


def _normalize(lines: list[str]) -> list[str]:
    stripped = [line.strip() for line in lines]
    while stripped and not stripped[-1]:
        stripped.pop()
    while stripped and not stripped[0]:
        stripped.pop(0)
    return stripped


@dataclass
class _BuildState:
    base_paths: list[Path] = field(default_factory=list)
    docs_dir: Path = Path("docs")
    page: str | None = None
    fences: list[_Fence] = field(default_factory=list)
    current: _Fence | None = None
    blocks: int = 0
    files: set[str] = field(default_factory=set)
    static_asserts: int = 0
    asserts_executed: int = 0
    unmatched_blocks: int = 0
    printed: list[str] = field(default_factory=list)  # what the running block has printed
    # include -> what each fence that ran it printed
    outputs: dict[str, list[str]] = field(default_factory=dict)

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]


_state = _BuildState()


# --- Which file and line does each executed line come from ---------------------------------


def _resolve_include(path: str) -> tuple[str, Path] | None:
    for base in _state.base_paths:
        candidate = base / path
        if candidate.is_file():
            return path, candidate
    return None


def _included_lines(spec: str) -> list[tuple[str, int, str]]:
    """The lines pymdownx.snippets puts in place of `--8<-- "spec"`: `(file, line, text)`."""
    path, _, selector = spec.partition(":")
    resolved = _resolve_include(path)
    if resolved is None:
        return []  # pymdownx.snippets (check_paths) reports a missing file itself
    display_path, file_path = resolved
    lines = file_path.read_text(encoding="utf-8").splitlines()
    numbered = list(enumerate(lines, start=1))
    if selector and re.fullmatch(r"[\d:,\-]+", selector):
        chosen: list[tuple[int, str]] = []
        for part in selector.split(","):
            bounds = part.split(":")
            start = int(bounds[0]) if bounds[0] else 1
            end = int(bounds[1]) if len(bounds) > 1 and bounds[1] else len(lines)
            chosen += numbered[max(start, 1) - 1 : end]
        numbered = chosen
    elif selector:
        inside, chosen = False, []
        for number, text in numbered:
            marker = _SECTION_MARKER.search(text)
            if marker and marker["name"] == selector:
                if marker["type"].lower() == "end" and inside:
                    break
                inside = True
                continue
            if inside and not marker:
                chosen.append((number, text))
        numbered = chosen
    return [(display_path, number, text) for number, text in numbered if not _SECTION_MARKER.search(text)]


def _executed_fences(markdown: str, page: str) -> list[_Fence]:
    fences: list[_Fence] = []
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        opening = _OPENING_FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence_chars, indent = opening["fence"], len(opening["indent"])
        closing = re.compile(rf"^[ \t]*{re.escape(fence_chars[0])}{{{len(fence_chars)},}}[ \t]*$")
        executed = bool(_EXEC_OPTION.search(opening["opts"]))
        fence = _Fence(page, index + 1)
        index += 1
        while index < len(lines) and not closing.match(lines[index]):
            line = lines[index]
            body_line = line[indent:] if line[:indent].strip() == "" else line
            include = _INCLUDE.match(body_line)
            if include:
                fence.includes.append(include["spec"])
                for path, number, text in _included_lines(include["spec"]):
                    fence.origins.append((path, number))
                    fence.texts.append(text)
            else:
                fence.origins.append((page, index + 1))
                fence.texts.append(body_line)
            index += 1
        index += 1
        if executed:
            fences.append(fence)
    return fences


def _match_fence(source: str) -> _Fence | None:
    wanted = _normalize(source.splitlines())
    for fence in _state.fences:
        if not fence.used and fence.normalized() == wanted:
            fence.used = True
            return fence
    return None


# --- Counting asserts --------------------------------------------------------------------------


@functools.cache
def _assert_lines(source: str) -> frozenset[int]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    return frozenset(node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert))


def _run_counting_asserts(run: Callable[[], Any], source: str) -> Any:
    """Call `run` while a line trace counts the asserts that pass in code-block frames.

    Only frames whose code comes from a markdown-exec block are traced line by line (their
    file name starts with `<code block:`), so engine code runs at nearly full speed. If a
    tracer is already installed (a debugger, coverage), nothing is traced or counted.
    """
    assert_lines = _assert_lines(source)
    if not assert_lines or sys.gettrace() is not None:
        return run()

    def local_trace(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_lineno in assert_lines:
            if event == "line":
                _state.asserts_executed += 1
            elif event == "exception" and issubclass(arg[0], AssertionError):
                _state.asserts_executed -= 1  # it ran, but it did not pass
        return local_trace

    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename.startswith("<code block:"):
            return local_trace
        return None

    sys.settrace(global_trace)
    try:
        return run()
    finally:
        sys.settrace(None)


def _wrap_formatter(original: Callable[..., str]) -> Callable[..., str]:
    if getattr(original, "_bookkit_wrapped", False):
        return original

    @functools.wraps(original)
    def formatter(source: str, language: str, *args: Any, **kwargs: Any) -> str:
        fence = _match_fence(source)
        _state.current = fence
        _state.blocks += 1
        _state.static_asserts += len(_assert_lines(source))
        if fence is not None:
            _state.files.update(fence.snippet_files)
        else:
            _state.unmatched_blocks += 1
        _state.printed = []
        try:
            html = _run_counting_asserts(lambda: original(source, language, *args, **kwargs), source)
            if fence is not None and len(fence.includes) == 1:
                _state.outputs.setdefault(fence.includes[0], []).append("".join(_state.printed))
            return html
        finally:
            _state.current = None

    formatter._bookkit_wrapped = True  # type: ignore[attr-defined]
    return formatter


def _guard_markdown_exec_print() -> None:
    """Printed means asserted: every `print` of an executed block goes through
    `bookkit.claims.guard_printed`, so a number printed without a check raises inside the
    block, which fails the strict build like any other failing snippet.

    Installed afresh for every build (over markdown-exec's own `_buffer_print`), so that after
    `mkdocs serve` re-imports bookkit the guard is the current `bookkit.claims`'s."""
    from markdown_exec._internal.formatters import python as exec_python

    original = getattr(exec_python._buffer_print, "_bookkit_original", exec_python._buffer_print)

    def guarded(buffer: Any, *texts: Any, **options: Any) -> None:
        guard_printed(*texts)
        original(buffer, *texts, **options)
        # What the block printed, as markdown-exec's print writes it and as `print` would.
        _state.printed.append(" ".join(str(text) for text in texts) + options.get("end", "\n"))

    guarded._bookkit_guarded = True  # type: ignore[attr-defined]
    guarded._bookkit_original = original  # type: ignore[attr-defined]
    exec_python._buffer_print = guarded


def _counts() -> dict[str, int]:
    counts = {f"stats:{kind}": amount for kind, amount in _stats.checks_passed.items()}
    return {"asserts_executed": _state.asserts_executed, **counts}


def _add_counts(counts: dict[str, int]) -> None:
    for name, amount in counts.items():
        if name == "asserts_executed":
            _state.asserts_executed += amount
        else:
            _stats.count(name.removeprefix("stats:"), amount)


def _reuse_unchanged_blocks() -> None:
    """During `mkdocs serve`, a block whose inputs did not change since it last ran gives its
    last output without running again (`bookkit/exec_cache.py`); `mkdocs build` runs all."""
    from markdown_exec._internal.formatters import python as exec_python

    original = getattr(exec_python._run_python, "_bookkit_original", exec_python._run_python)

    def run_python(code: str, returncode: int | None = None, session: str | None = None,
                   id: str | None = None, **extra: Any) -> str:
        def run() -> str:
            return original(code, returncode=returncode, session=session, id=id, **extra)

        options = {"returncode": returncode, "session": session, "id": id, **extra}
        before = exec_cache.reused
        output = exec_cache.run_cached(run, code, options, _counts, _add_counts)
        if exec_cache.reused != before:
            exec_python._code_block_id(id, session, extra.get("title"))  # keep block numbering
        return output

    run_python._bookkit_original = original  # type: ignore[attr-defined]
    exec_python._run_python = run_python

    # A helper that load_snippet_module returns from its own cache is not opened again: tell
    # the cache which helpers each block asks for.
    import bookkit
    from bookkit import snippet_modules

    load = snippet_modules.load_snippet_module
    load = getattr(load, "_bookkit_original", load)

    def load_snippet_module(relative_path: str | Path) -> Any:
        exec_cache.note_loaded(relative_path)
        return load(relative_path)

    load_snippet_module._bookkit_original = load  # type: ignore[attr-defined]
    snippet_modules.load_snippet_module = load_snippet_module
    bookkit.load_snippet_module = load_snippet_module


def _snippet_file_of(fence: _Fence | None) -> Path | None:
    """The one snippet file every code line of `fence` comes from, or None (a block with lines
    typed in the page, or with lines from several files, has no file of its own)."""
    if fence is None:
        return None
    files = {path for path, _ in fence.origins}
    if len(files) != 1 or fence.page in files:
        return None
    resolved = _resolve_include(files.pop())
    return resolved[1].resolve() if resolved else None


def _give_blocks_their_file() -> None:
    """Set `__file__` in the globals of a block that runs one snippet file
    (`_snippet_file_of`), as `python snippets/<chapter>/<file>.py` would."""
    from markdown_exec._internal.formatters import python as exec_python

    original = exec_python.exec_python
    if getattr(original, "_bookkit_gives_file", False):
        return

    def exec_with_file(code: str, filename: str, exec_globals: dict[str, Any] | None = None) -> None:
        snippet = _snippet_file_of(_state.current)
        if exec_globals is not None and snippet is not None:
            exec_globals["__file__"] = str(snippet)
        original(code, filename, exec_globals)

    exec_with_file._bookkit_gives_file = True  # type: ignore[attr-defined]
    exec_python.exec_python = exec_with_file


# --- Naming the page and snippet in markdown-exec's warnings -----------------------------------


class _NameTheSnippet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or getattr(record, "_bookkit_named", False):
            return True
        message = record.getMessage()
        where = f"page '{_state.page}'" if _state.page else "an unknown page"
        fence = _state.current
        if fence is not None:
            frames = _BLOCK_FRAME.findall(message)
            if frames:
                block_line = int(frames[-1][1])
                if 1 <= block_line <= len(fence.origins):
                    path, line = fence.origins[block_line - 1]
                    where += f", snippet '{path}' line {line}"
            elif fence.snippet_files:
                where += ", snippet " + ", ".join(f"'{p}'" for p in fence.snippet_files)
            where += f" (fence at {fence.page} line {fence.page_line})"
        record.msg = f"bookkit: {where}: {message}"
        record.args = ()
        record._bookkit_named = True  # type: ignore[attr-defined]
        return True


_FILTER = _NameTheSnippet()


def _install_log_filter() -> None:
    names = [
        name
        for name in list(logging.root.manager.loggerDict)
        if name.startswith("mkdocs.plugins.markdown_exec")
    ]
    names.append("mkdocs.plugins.markdown_exec._internal.formatters.base")
    for name in names:
        logger = logging.getLogger(name)
        # `mkdocs serve` loads this module afresh for every rebuild; drop the filters of
        # earlier loads, which would report the stale state of their own module.
        for stale in [f for f in logger.filters if type(f).__name__ == _NameTheSnippet.__name__]:
            logger.removeFilter(stale)
        logger.addFilter(_FILTER)


# --- MkDocs events ---------------------------------------------------------------------------


def on_config(config: Any) -> Any:
    _state.reset()
    _stats.reset()
    config_dir = Path(config.config_file_path).resolve().parent
    snippet_options = config.mdx_configs.get("pymdownx.snippets", {})
    base_paths = snippet_options.get("base_path", ["."])
    if isinstance(base_paths, str):
        base_paths = [base_paths]
    _state.base_paths = [config_dir / str(path) for path in base_paths]
    _state.docs_dir = Path(config.docs_dir)
    fences = config.mdx_configs.get("pymdownx.superfences", {}).get("custom_fences", [])
    wrapped = 0
    for fence in fences:
        if fence.get("name") == "python" and "markdown_exec" in getattr(
            fence.get("format"), "__module__", ""
        ):
            fence["format"] = _wrap_formatter(fence["format"])
            wrapped += 1
    if not wrapped and not any(getattr(f.get("format"), "_bookkit_wrapped", False) for f in fences):
        log.warning("bookkit: markdown-exec's python fence not found; nothing will be counted")
    _install_log_filter()
    _guard_markdown_exec_print()
    _reuse_unchanged_blocks()
    _reuse_unchanged_pages()
    _reuse_search_entries()
    exec_cache.reused = 0
    exec_cache.pages_reused = 0
    exec_cache.new_build()
    _give_blocks_their_file()
    return config


_PAGE_INCLUDE = re.compile(r"""-{1,}8<-{1,}[ \t]+["']?([^"'\s:]+)""")


def _page_snapshot() -> dict[str, Any]:
    return {
        "blocks": _state.blocks,
        "static_asserts": _state.static_asserts,
        "unmatched_blocks": _state.unmatched_blocks,
        "reused": exec_cache.reused,
        **_counts(),
    }


def _page_inputs(page: Any, config: Any, files: Any, paths: set[str]) -> dict[str, str]:
    import hashlib

    def digest(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    inputs = {
        ":markdown": digest(page.markdown or ""),
        ":files": digest("\n".join(sorted(f.src_uri for f in files))),
        ":config": digest(Path(config.config_file_path).read_text(encoding="utf-8")),
    }
    inputs.update(exec_cache.engine_and_bookkit())
    inputs.update(exec_cache.digests(paths))
    return inputs


def _registrars(config: Any) -> dict[str, Any]:
    """The objects a page's conversion registers its anchors with: the autorefs plugin (its
    URL maps serve cross-references from every page) and mkdocstrings' inventory."""
    found: dict[str, Any] = {}
    plugins = getattr(config, "plugins", {}) or {}
    if "autorefs" in plugins:
        found["autorefs"] = plugins["autorefs"]
    if "mkdocstrings" in plugins:
        found["inventory"] = plugins["mkdocstrings"].handlers.inventory
    return found


_REGISTERING = {"autorefs": ("register_anchor", "register_url"), "inventory": ("register",)}


@contextlib.contextmanager
def _recording_registrations(config: Any) -> Iterator[list[tuple[str, str, tuple, dict]] | None]:
    """Record the registrations a page's conversion makes (target, method, arguments), to make
    them again when the page is reused; None when the registrars cannot be found."""
    try:
        registrars = _registrars(config)
    except Exception:  # another mkdocstrings layout: such a page is never reused
        yield None
        return
    calls: list[tuple[str, str, tuple, dict]] = []
    patched = []
    for target, registrar in registrars.items():
        for name in _REGISTERING[target]:
            method = getattr(registrar, name)

            def recording(*args: Any, _method: Any = method, _at: tuple = (target, name),
                          **kwargs: Any) -> Any:
                calls.append((*_at, args, kwargs))
                return _method(*args, **kwargs)

            setattr(registrar, name, recording)
            patched.append((registrar, name))
    try:
        yield calls
    finally:
        for registrar, name in patched:
            delattr(registrar, name)  # the class's method again


def _reuse_unchanged_pages() -> None:
    """During `mkdocs serve`, a page whose Markdown, included files, block inputs (as
    `bookkit/exec_cache.py` recorded them), engine, bookkit, config and file list are all
    unchanged is not converted again: its HTML, table of contents and anchors, and the counts
    its blocks added to the build stamp, are those of its last conversion. A page whose
    conversion logged a warning or that ran a block in a session is always converted. A page
    of mkdocstrings output (the API reference) registers its objects with autorefs and the
    inventory while it converts: those calls are recorded and made again when it is reused
    (`_recording_registrations`). `mkdocs build` converts every page."""
    from mkdocs.structure import pages as mkdocs_pages

    original = getattr(mkdocs_pages.Page.render, "_bookkit_original", mkdocs_pages.Page.render)

    def render(page: Any, config: Any, files: Any) -> None:
        if not exec_cache.ENABLED:
            return original(page, config, files)
        uri = page.file.src_uri
        root = _state.base_paths[0]
        included = {m for m in _PAGE_INCLUDE.findall(page.markdown or "") if (root / m).is_file()}
        entry = exec_cache.pages.get(uri)
        if entry is not None:
            paths = {k for k in entry.inputs if not k.startswith(":")} - set(exec_cache.engine_and_bookkit())
            if _page_inputs(page, config, files, paths | included) == entry.inputs:
                page.content, page.toc, page._title_from_render = entry.content, entry.toc, entry.title
                page.present_anchor_ids = set(entry.anchors)
                if entry.links is not None:
                    page.links_to_anchors = {
                        files.get_file_from_path(target): dict(links)
                        for target, links in entry.links.items()
                        if files.get_file_from_path(target) is not None
                    }
                for name, amount in entry.counts.items():
                    if name == "blocks":
                        _state.blocks += amount
                    elif name == "static_asserts":
                        _state.static_asserts += amount
                    elif name == "unmatched_blocks":
                        _state.unmatched_blocks += amount
                    elif name == "reused":
                        exec_cache.reused += amount
                    else:
                        _add_counts({name: amount})
                exec_cache.reused += entry.counts.get("blocks", 0) - entry.counts.get("reused", 0)
                _state.files.update(entry.files)
                for target, name, args, kwargs in getattr(entry, "registrations", ()):
                    getattr(_registrars(config)[target], name)(*args, **kwargs)
                exec_cache.pages_reused += 1
                return None
        before, files_before = _page_snapshot(), set(_state.files)
        exec_cache.page_dependencies.clear()
        exec_cache.page_uncacheable = False
        warnings = _WarningCounter()
        logging.getLogger("mkdocs").addHandler(warnings)
        try:
            with _recording_registrations(config) as registrations:
                original(page, config, files)
        finally:
            logging.getLogger("mkdocs").removeHandler(warnings)
        after = _page_snapshot()
        content = page.content or ""
        unrecorded = registrations is None and ("autoref" in content or "doc-object" in content)
        if warnings.count or exec_cache.page_uncacheable or unrecorded:
            exec_cache.pages.pop(uri, None)
            return None
        links = None
        if page.links_to_anchors is not None:
            links = {target.src_uri: dict(found) for target, found in page.links_to_anchors.items()}
        entry = exec_cache.PageEntry(
            inputs=_page_inputs(page, config, files, set(exec_cache.page_dependencies) | included),
            content=content, toc=page.toc, title=page._title_from_render,
            anchors=set(page.present_anchor_ids or ()), links=links,
            counts={k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)},
        )
        entry.files = sorted(set(_state.files) - files_before)  # type: ignore[attr-defined]
        entry.registrations = list(registrations or ())  # type: ignore[attr-defined]
        exec_cache.pages[uri] = entry
        return None

    render._bookkit_original = original  # type: ignore[attr-defined]
    mkdocs_pages.Page.render = render


def _reuse_search_entries() -> None:
    """During `mkdocs serve`, the search entries of a page whose HTML, title, URL, metadata and
    table of contents are unchanged are those computed last time (the search plugin parses
    every page's HTML again on every rebuild otherwise)."""
    import copy
    import hashlib

    try:
        from material.plugins.search.plugin import SearchIndex
    except ImportError:
        return
    original = SearchIndex.add_entry_from_context
    original = getattr(original, "_bookkit_original", original)

    def toc_text(items: Any) -> str:
        return "".join(f"{i.id}|{i.title}|{i.url}({toc_text(i.children)})" for i in items or ())

    def add_entry_from_context(index: Any, page: Any) -> None:
        if not exec_cache.ENABLED:
            return original(index, page)
        parts = [page.url, str(page.title), repr(page.meta), toc_text(page.toc), page.content or ""]
        key = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()
        if key in exec_cache.search_entries:
            index.entries.extend(copy.deepcopy(exec_cache.search_entries[key]))
            return None
        start = len(index.entries)
        original(index, page)
        exec_cache.search_entries[key] = copy.deepcopy(index.entries[start:])
        return None

    add_entry_from_context._bookkit_original = original  # type: ignore[attr-defined]
    SearchIndex.add_entry_from_context = add_entry_from_context


class _WarningCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def on_startup(command: str, dirty: bool) -> None:
    exec_cache.ENABLED = command == "serve"
    if exec_cache.ENABLED:
        exec_cache.forget_changed_sources()  # remember what the first build imports


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str | None:
    _state.page = page.file.src_uri
    _state.fences = _executed_fences(markdown, f"docs/{page.file.src_uri}")
    return None


_ID_ATTRIBUTE = re.compile(r'\bid="([^"]+)"')
_LINK_ATTRIBUTE = re.compile(r'(<(?:a|img)\b[^>]*?\b(?:href|src)=")([^"]*)(")')


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str | None:
    from html import escape, unescape
    from urllib.parse import urlsplit

    from mkdocs.structure.pages import _RelativePathTreeprocessor

    converter = _RelativePathTreeprocessor(page.file, files, config)

    def convert(match: re.Match[str]) -> str:
        url = unescape(match.group(2))
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or url.startswith(("/", "\\")):
            return match.group(0)
        if parts.path.endswith(".md"):
            url = converter.path_to_url(url)  # logs a missing page like any other link
        elif not parts.path and parts.fragment:
            converter.links_to_anchors.setdefault(page.file, {}).setdefault(parts.fragment, url)
        else:
            return match.group(0)
        return match.group(1) + escape(url, quote=True) + match.group(3)

    html = _LINK_ATTRIBUTE.sub(convert, html)
    # Ids inside snippet output (headings, glossary terms) are real anchors, but MkDocs only
    # collected those it saw in the Markdown; add every id of the final HTML.
    ids = {unescape(found) for found in _ID_ATTRIBUTE.findall(html)}
    page.present_anchor_ids = (page.present_anchor_ids or set()) | ids
    if converter.links_to_anchors:
        if page.links_to_anchors is None:
            page.links_to_anchors = {}
        for target, anchors in converter.links_to_anchors.items():
            for anchor, original in anchors.items():
                page.links_to_anchors.setdefault(target, {}).setdefault(anchor, original)
    return html


def _version(distribution: str, module: str) -> str:
    try:
        imported = __import__(module)
        version = getattr(imported, "__version__", None)
        return str(version) if version else metadata.version(distribution)
    except (ImportError, metadata.PackageNotFoundError):
        return "not installed"


def build_stamp_html() -> str:
    """The stamp for the home page: versions and what this build executed."""
    derivation_checks = _stats.checks_passed.get("derivation_lines", 0)
    shape_checks = _stats.checks_passed.get("assert_shape_then_close", 0)
    printed_checks = _stats.checks_passed.get("printed_values_checked", 0)
    items = [
        f"<code>ad_core</code> {_version('ad-core', 'ad_core')}",
        f"NumPy {_version('numpy', 'numpy')}",
        f"{_state.blocks} code blocks executed, from {len(_state.files)} snippet files",
        f"{_state.asserts_executed} <code>assert</code> statements of the snippets' own code "
        f"executed and passed (counted as they ran, so an assert in a loop counts once per "
        f"iteration; asserts inside imported helper modules are not counted); the executed "
        f"blocks contain {_state.static_asserts} <code>assert</code> statements (counted "
        f"with <code>ast</code>)",
        f"{derivation_checks} comparisons of a derivation line with the line before it "
        f"(each derivation on several random inputs), and {shape_checks} other "
        f"<code>assert_shape_then_close</code> checks in <code>bookkit</code>",
        f"{printed_checks} calls of <code>checked</code> that passed: a value the snippet "
        f"computed, compared with a second computation before it could be printed (whether "
        f"the second one is independent is for review to judge)",
    ]
    if exec_cache.ENABLED and exec_cache.reused:
        items.append(
            f"<code>mkdocs serve</code>: {exec_cache.reused} of the {_state.blocks} blocks gave "
            f"the output of their last run, their code and inputs unchanged since"
        )
    body = "".join(f"<li>{item}</li>" for item in items)
    return f'<div class="bk-build-stamp"><ul>{body}</ul></div>'


def on_post_page(output: str, page: Any, config: Any) -> str | None:
    if page.file.src_uri != STAMP_PAGE:
        return None
    if STAMP_PLACEHOLDER not in output:
        log.warning(f"bookkit: {STAMP_PAGE} has no {STAMP_PLACEHOLDER!r} for the build stamp")
        return None
    return output.replace(STAMP_PLACEHOLDER, build_stamp_html())


def on_post_build(config: Any) -> None:
    from bookkit import cjk_font

    project_dir = Path(config.config_file_path).resolve().parent
    try:
        count, size = cjk_font.write_font(Path(config.site_dir), project_dir)
    except (cjk_font.MissingGlyphs, FileNotFoundError) as error:
        log.warning(f"bookkit: Chinese text would show as boxes: {error}")
    else:
        log.info(f"bookkit: CJK font subset: {count} characters, {size} bytes")
    log.info(
        f"bookkit: executed {_state.blocks} code blocks from {len(_state.files)} snippet files; "
        f"{_state.asserts_executed} asserts executed and passed "
        f"({_state.static_asserts} assert statements in the executed blocks); "
        f"{_state.unmatched_blocks} blocks not traced back to their snippet files"
        + (
            f"; mkdocs serve: {exec_cache.reused} blocks and {exec_cache.pages_reused} pages reused unchanged"
            if exec_cache.ENABLED
            else ""
        )
    )
    outputs_file = os.environ.get("BOOK_SNIPPET_OUTPUTS")
    if outputs_file:
        Path(outputs_file).write_text(json.dumps(_state.outputs, indent=1, sort_keys=True), encoding="utf-8")
