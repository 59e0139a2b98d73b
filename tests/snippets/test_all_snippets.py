"""Every snippet runs on its own, prints Markdown, prints the same twice, and is on a page.

`python snippets/<chapter>/<name>.py` from the repository root must print exactly what the
page shows, so each snippet is run standalone in a subprocess, twice (a different hash seed
each time, so set ordering or time would show), and all of them in parallel.
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bookkit.testing import run_python

REPO_ROOT = Path(__file__).resolve().parents[2]
SNIPPETS_DIR = REPO_ROOT / "snippets"
DOCS = REPO_ROOT / "docs"
SNIPPET_TIMEOUT_SECONDS = 300
SNIPPETS = sorted(
    path
    for path in SNIPPETS_DIR.rglob("*.py")
    if not path.name.startswith("_") and "__pycache__" not in path.parts
)


def _relative(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def _run(path: Path, hash_seed: int) -> subprocess.CompletedProcess:
    return run_python(
        ["-m", "bookkit.run_snippet", _relative(path)],
        {"PYTHONHASHSEED": str(hash_seed)},
        SNIPPET_TIMEOUT_SECONDS,
    )


@pytest.fixture(scope="session")
def snippet_runs(request: pytest.FixtureRequest) -> dict[Path, tuple]:
    """Both runs of every snippet selected in this session, computed in parallel."""
    selected = {
        item.callspec.params["snippet"]
        for item in request.session.items
        if getattr(item, "callspec", None) and "snippet" in item.callspec.params
    }
    jobs = [(path, seed) for path in sorted(selected) for seed in (1, 2)]
    workers = max(2, min(8, (os.cpu_count() or 2)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda job: _run(*job), jobs))
    runs: dict[Path, list] = {}
    for (path, _), result in zip(jobs, results, strict=True):
        runs.setdefault(path, []).append(result)
    return {path: tuple(pair) for path, pair in runs.items()}


@pytest.mark.parametrize("snippet", SNIPPETS, ids=_relative)
def test_snippet_runs_standalone(snippet: Path, snippet_runs: dict[Path, tuple]) -> None:
    first, second = snippet_runs[snippet]
    assert first.returncode == 0, f"{_relative(snippet)} failed:\n{first.stderr}"
    assert first.stdout.strip(), f"{_relative(snippet)} printed nothing"
    assert second.returncode == 0, f"{_relative(snippet)} failed on its second run:\n{second.stderr}"
    assert first.stdout == second.stdout, f"{_relative(snippet)} printed different output twice"


def _included_files() -> set[str]:
    include = re.compile(r"""-{1,}8<-{1,}\s+["']?(snippets/[^"':\s]+\.py)""")
    found: set[str] = set()
    for page in DOCS.rglob("*.md"):
        found.update(include.findall(page.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("snippet", SNIPPETS, ids=_relative)
def test_snippet_is_included_by_a_page(snippet: Path) -> None:
    assert _relative(snippet) in _included_files(), f"no page includes {_relative(snippet)}"


def test_there_are_snippets() -> None:
    assert SNIPPETS, "no snippet found under snippets/"
