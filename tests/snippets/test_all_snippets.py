"""Every snippet runs, prints Markdown, prints the same every time, and is on a page.

The strict build (the session's `built_site`) runs every snippet, and the hook keeps what each
printed (`bookkit.testing.snippet_outputs_file`): locally those are the executions checked
here, so `make test` runs a snippet once (and once more in the mutation test's control run,
`tests/_mutants.py`, which records the rules it calls). In CI (`.ci/run` sets `BOOK_CI=1`) each
snippet also runs standalone, `python -m bookkit.run_snippet snippets/<chapter>/<name>.py` in a
fresh interpreter with another hash seed than the build's, all of them in parallel, and must
print exactly what the build printed: so the page shows what the file prints on its own, and
nothing depends on set ordering, time or state left by an earlier block of the build.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bookkit.testing import BUILD_HASH_SEED, run_python, snippet_outputs_file

REPO_ROOT = Path(__file__).resolve().parents[2]
SNIPPETS_DIR = REPO_ROOT / "snippets"
DOCS = REPO_ROOT / "docs"
SNIPPET_TIMEOUT_SECONDS = 300
STANDALONE_HASH_SEED = "1"
assert STANDALONE_HASH_SEED != BUILD_HASH_SEED
IN_CI = os.environ.get("BOOK_CI") == "1"
SNIPPETS = sorted(
    path
    for path in SNIPPETS_DIR.rglob("*.py")
    if not path.name.startswith("_") and "__pycache__" not in path.parts
)


def _relative(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


@pytest.fixture(scope="session")
def build_outputs(built_site: Path) -> dict[str, list[str]]:
    """{include: what each fence that ran it printed}, from the session's strict build; an
    include is a whole file (`snippets/x.py`) or one named section of it (`snippets/x.py:name`)."""
    outputs = snippet_outputs_file(built_site)
    if not outputs.is_file():
        pytest.fail(
            f"{outputs} is missing: build with bookkit.testing.mkdocs_build (or set "
            f"BOOK_SNIPPET_OUTPUTS={outputs} for `mkdocs build`)",
            pytrace=False,
        )
    return json.loads(outputs.read_text(encoding="utf-8"))


@pytest.mark.parametrize("snippet", SNIPPETS, ids=_relative)
def test_snippet_ran_in_the_build_and_printed_the_same_each_time(
    snippet: Path, build_outputs: dict[str, list[str]]
) -> None:
    name = _relative(snippet)
    runs = {include: outputs for include, outputs in build_outputs.items() if include.split(":")[0] == name}
    assert runs, f"the build did not run {name}"
    assert any(output.strip() for outputs in runs.values() for output in outputs), f"{name} printed nothing"
    for include, outputs in runs.items():
        assert all(output == outputs[0] for output in outputs), f"{include} printed differently in two fences"


@pytest.fixture(scope="session")
def standalone_runs(request: pytest.FixtureRequest) -> dict[Path, subprocess.CompletedProcess]:
    """The standalone run of every snippet selected in this session, computed in parallel."""
    selected = sorted(
        {
            item.callspec.params["snippet"]
            for item in request.session.items
            if getattr(item, "callspec", None)
            and "snippet" in item.callspec.params
            and item.originalname == "test_snippet_runs_standalone_and_prints_what_the_build_printed"
        }
    )
    workers = max(2, min(8, (os.cpu_count() or 2)))

    def run(path: Path) -> subprocess.CompletedProcess:
        return run_python(
            ["-m", "bookkit.run_snippet", _relative(path)],
            {"PYTHONHASHSEED": STANDALONE_HASH_SEED},
            SNIPPET_TIMEOUT_SECONDS,
        )

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(zip(selected, pool.map(run, selected), strict=True))


@pytest.mark.skipif(not IN_CI, reason="CI only (BOOK_CI=1, set by .ci/run): the build ran every snippet")
@pytest.mark.parametrize("snippet", SNIPPETS, ids=_relative)
def test_snippet_runs_standalone_and_prints_what_the_build_printed(
    snippet: Path,
    standalone_runs: dict[Path, subprocess.CompletedProcess],
    build_outputs: dict[str, list[str]],
) -> None:
    name, result = _relative(snippet), standalone_runs[snippet]
    assert result.returncode == 0, f"{name} failed standalone:\n{result.stderr}"
    assert result.stdout.strip(), f"{name} printed nothing"
    if name in build_outputs:  # a page runs the whole file (others run only named sections)
        assert result.stdout == build_outputs[name][0], f"{name} printed otherwise than in the build"


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
