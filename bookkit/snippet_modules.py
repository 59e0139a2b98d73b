"""Import a chapter's hidden helper module (`snippets/<chapter>/_model.py`) by path.

A snippet runs in two ways: in-process by markdown-exec (no `__file__`, cwd = repository root)
and standalone as `python snippets/<chapter>/x.py` (its own folder on `sys.path`). Loading by
a path computed from this package's location works the same in both.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parent.parent
_loaded: dict[str, tuple[int, ModuleType]] = {}


def load_snippet_module(relative_path: str | Path) -> ModuleType:
    """The module at `relative_path` (from the repository root, e.g.
    `"snippets/tracing/_model.py"`, or absolute, e.g. `Path(__file__).with_name("_model.py")`),
    imported once and again only when the file changes."""
    path = (REPO_ROOT / relative_path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no snippet module at {relative_path}")
    mtime = path.stat().st_mtime_ns
    key = str(path)
    cached = _loaded.get(key)
    if cached and cached[0] == mtime:
        return cached[1]
    digest = hashlib.sha1(key.encode()).hexdigest()[:8]
    name = f"_bookkit_snippet_{path.stem.lstrip('_')}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {relative_path}")
    module = importlib.util.module_from_spec(spec)
    # Registered before running it, so dataclasses and pickling inside it find their module.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _loaded[key] = (mtime, module)
    return module
