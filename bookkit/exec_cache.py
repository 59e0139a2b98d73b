"""Block outputs kept between the rebuilds of one `mkdocs serve` (never in `mkdocs build`).

`bookkit/hooks.py` runs each executed block through `run_cached`. During `mkdocs serve`, a
block whose code (the snippet text pymdownx.snippets put in the fence), whose files read
while it ran (every file of the repository it opened, every folder it listed, every helper
it asked `load_snippet_module` for) and whose engine and bookkit sources are all
byte-identical to the run that produced an output gets that output again instead of running;
any difference runs it, and so does a block in a `session` or one that started a process
(but `python snippets/<chapter>/x.py`, which depends on that folder's files and the engine,
and `python -c "<code>"` whose code reads no file).
A failing block is never stored. The counts the build stamp
shows (asserts executed, checks passed) are stored with the output and added again, so the
stamp reads the same as after a full run, and says how many blocks were reused.

`mkdocs build` (the strict build, CI, the published site) runs every block: `ENABLED` is set
only by the hook's `on_startup(command="serve")`. This module keeps its state across rebuilds
because the hook never removes it from `sys.modules` (it removes the engine and the rest of
bookkit after each serve rebuild, so an edit to either is imported afresh).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
ENABLED = False


@dataclass
class Entry:
    output: str
    dependencies: dict[str, str]  # repository-relative path -> sha256 of its bytes
    counts: dict[str, int] = field(default_factory=dict)


_entries: dict[str, Entry] = {}
_hash_memo: dict[str, tuple[int, int, str]] = {}  # path -> (mtime_ns, size, sha256)
reused = 0  # blocks reused in the current build
memo: dict[Any, Any] = {}  # other results worth keeping between rebuilds (bookkit.cjk_font)


def _digest(path: Path) -> str:
    try:
        status = path.stat()
    except FileNotFoundError:
        return "missing"
    memo = _hash_memo.get(str(path))
    if memo and memo[:2] == (status.st_mtime_ns, status.st_size):
        return memo[2]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _hash_memo[str(path)] = (status.st_mtime_ns, status.st_size, digest)
    return digest


_trees: dict[Path, dict[str, str]] = {}  # read once per build (new_build() forgets them)


def new_build() -> None:
    _trees.clear()


def _tree(folder: Path) -> dict[str, str]:
    if folder not in _trees:
        _trees[folder] = {
            path.relative_to(REPO_ROOT).as_posix(): _digest(path)
            for path in sorted(folder.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts
        }
    return _trees[folder]


def _listing(folder: Path) -> str:
    try:
        names = sorted(entry.name for entry in folder.iterdir())
    except OSError:
        return "missing"
    return hashlib.sha256("\n".join(names).encode("utf-8")).hexdigest()


def _current(path: str) -> str:
    """The digest of a dependency: a file's bytes, or (`dir:` prefix) a folder's listing."""
    if path.startswith("dir:"):
        return _listing(REPO_ROOT / path[4:])
    return _digest(REPO_ROOT / path)


def _dependencies(touched: set[str]) -> dict[str, str]:
    deps: dict[str, str] = {}
    for package in ("ad_core", "bookkit"):
        deps.update(_tree(REPO_ROOT / package))
    for path in sorted(touched):
        deps.setdefault(path, _current(path))
    return deps


def _valid(entry: Entry) -> bool:
    if (set(_tree(REPO_ROOT / "ad_core")) | set(_tree(REPO_ROOT / "bookkit"))) - set(entry.dependencies):
        return False  # a module was added to the engine or bookkit
    return all(_current(path) == digest for path, digest in entry.dependencies.items())


_touching: list[set[str]] = []  # the files the running block has opened, listed or loaded


def note_loaded(path: str | Path) -> None:
    """`load_snippet_module` was asked for this file (repository-relative or absolute; it may
    answer from its own cache, without opening it): the running block depends on it."""
    if _touching:
        resolved = (REPO_ROOT / path).resolve()
        if resolved.is_relative_to(REPO_ROOT):
            _touching[-1].add(resolved.relative_to(REPO_ROOT).as_posix())


def _key(code: str, options: dict[str, Any]) -> str:
    return hashlib.sha256(repr((code, sorted(options.items()))).encode("utf-8")).hexdigest()


def run_cached(
    run: Callable[[], str],
    code: str,
    options: dict[str, Any],
    counts: Callable[[], dict[str, int]],
    add_counts: Callable[[dict[str, int]], None],
) -> str:
    """`run()`'s output, or the stored output of an identical earlier run (see the module)."""
    global reused
    global page_uncacheable
    if not ENABLED or options.get("session"):
        page_uncacheable = True
        return run()
    key = _key(code, options)
    entry = _entries.get(key)
    if entry is not None and _valid(entry):
        add_counts(entry.counts)
        reused += 1
        note_dependencies(entry.dependencies)
        return entry.output
    touched: set[str] = set()
    spawned: list[str] = []
    root = str(REPO_ROOT) + "/"

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and isinstance(args[0], str | Path):
            path = str(args[0])
            if path.startswith(root) and "__pycache__" not in path:
                touched.add(path[len(root) :])
        elif event in ("os.listdir", "os.scandir") and args and isinstance(args[0], str | Path):
            path = str(Path(args[0]).resolve())
            if path.startswith(root):
                touched.add("dir:" + path[len(root) :])
        elif event == "subprocess.Popen" and len(args) > 1 and isinstance(args[1], list | tuple):
            # `python snippets/<chapter>/x.py`: the process reads that chapter's files and
            # the engine; any other program, or a file outside the repository, is unknown.
            # `python -c "<code>"` whose code names no file (the code is part of the block's
            # own text, so of its key) depends only on the interpreter and the engine.
            command = [str(a) for a in args[1]]
            ours = Path(command[0]).resolve() == Path(sys.executable).resolve()
            if ours and len(command) == 3 and command[1] == "-c" and not _names_files(command[2]):
                return
            named = [a for a in command[1:] if (REPO_ROOT / a).is_file()]
            if not named or not ours:
                spawned.append(event)
            for name in named:
                folder = (REPO_ROOT / name).resolve().parent
                touched.update(p.relative_to(REPO_ROOT).as_posix() for p in folder.rglob("*.py"))
        elif event in ("os.system", "os.exec", "os.posix_spawn"):
            spawned.append(event)  # another process reads what it likes: never reuse

    _install_audit(audit)
    _touching.append(touched)
    before = counts()
    try:
        output = run()
    finally:
        _touching.pop()
        _remove_audit()
    after = counts()
    if spawned:
        page_uncacheable = True
        _entries.pop(key, None)
        return output
    delta = {name: after.get(name, 0) - before.get(name, 0) for name in after}
    _entries[key] = Entry(output, _dependencies(touched), {k: v for k, v in delta.items() if v})
    note_dependencies(_entries[key].dependencies)
    return output


def _names_files(code: str) -> bool:
    """Whether `python -c` code may read files of its own (then its output is not known from
    the block's text): it opens, imports from the book, or names a path."""
    return any(word in code for word in ("open(", "Path", "snippets", "docs", "import ad_core",
                                         "import bookkit", "from ad_core", "from bookkit", "/"))


# An audit hook cannot be removed; one permanent hook calls the current recorder, if any.
_recorder: list[Callable[[str, tuple[Any, ...]], None]] = []
_hook_installed = False


def _install_audit(recorder: Callable[[str, tuple[Any, ...]], None]) -> None:
    global _hook_installed
    if not _hook_installed:
        sys.addaudithook(lambda event, args: _recorder and _recorder[-1](event, args))
        _hook_installed = True
    _recorder.append(recorder)


def _remove_audit() -> None:
    if _recorder:
        _recorder.pop()


_imported: dict[str, str] | None = None  # the engine and bookkit sources when last imported


def forget_changed_sources() -> None:
    """Called by bookkit/hooks.py as `mkdocs serve` loads it for a rebuild, before it imports
    bookkit: if a file of the engine or of bookkit changed since the last rebuild imported
    them, remove them from `sys.modules` (and the snippet helper modules, which hold the old
    engine), so that this rebuild runs the code on disk."""
    global _imported
    new_build()
    current = {**_tree(REPO_ROOT / "ad_core"), **_tree(REPO_ROOT / "bookkit")}
    new_build()
    if _imported is not None and current != _imported:
        forget_imported_sources()
    _imported = current


def forget_imported_sources() -> None:
    """Remove the engine, bookkit (but this module) and snippet helper modules from
    `sys.modules`, so that they are imported again from disk."""
    for name in list(sys.modules):
        if name == __name__:
            continue
        if name.split(".")[0] in ("ad_core", "bookkit") or name.startswith("_bookkit_snippet_"):
            del sys.modules[name]


# --- Pages: during `mkdocs serve`, a page whose inputs did not change is not converted again ---


@dataclass
class PageEntry:
    inputs: dict[str, str]  # the page's Markdown, the site's file list, config, and file digests
    content: str
    toc: Any
    title: str | None
    anchors: set[str]
    links: dict[str, dict[str, str]] | None  # linked page's src_uri -> {anchor: original link}
    counts: dict[str, int]


pages: dict[str, PageEntry] = {}
search_entries: dict[Any, list[dict[str, Any]]] = {}  # the search plugin's entries per page
pages_reused = 0
page_uncacheable = False  # the page being rendered ran a block whose inputs are not known
page_dependencies: set[str] = set()  # files the blocks of the page being rendered depended on


def note_dependencies(paths: dict[str, str]) -> None:
    page_dependencies.update(paths)


def digests(paths: set[str]) -> dict[str, str]:
    return {path: _current(path) for path in sorted(paths)}


def engine_and_bookkit() -> dict[str, str]:
    found = _tree(REPO_ROOT / "ad_core")
    found.update(_tree(REPO_ROOT / "bookkit"))
    return found
