"""Break `unbroadcast` on purpose, in a copy of the repository, and watch the chapter fail.

The chapter "Broadcasting in reverse" claims that its numbers come from the engine and are
checked. If that is true, a broken `unbroadcast` must make its snippets fail when run alone,
and must make `mkdocs build --strict` fail, naming the page and the snippet. Two breakages:

(a) the leading sum uses the wrong axis (`axis=-1` instead of `axis=broadcast_idx`);
(b) the size-1 sum drops `keepdims=True`.

Nothing in the repository is edited: the engine, bookkit, the chapter's snippets, its page and
the MkDocs config are copied to a temporary folder, the copy's `ad_core/numpy/vjps.py` is
patched, and every process runs with the copy first on `PYTHONPATH`.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
CHAPTER = "broadcasting_in_reverse"
PAGE = "part1/broadcasting-in-reverse.md"
SNIPPET_DIR = Path("snippets") / CHAPTER
TIMEOUT_SECONDS = 120

# (name, pattern inside `unbroadcast`, replacement, snippets that must fail standalone)
BREAKAGES = {
    "wrong-axis": (
        r"anp\.sum\(x, axis=broadcast_idx\)",
        "anp.sum(x, axis=-1)",
        {"bias_examples.py", "reduction_plan_table.py"},
    ),
    "no-keepdims": (
        r"anp\.sum\(x, axis=axis, keepdims=True\)",
        "anp.sum(x, axis=axis)",
        {"row_bias_keepdims.py", "reduction_plan_table.py"},
    ),
}


def copy_project(destination: Path) -> Path:
    """The parts of the repository the chapter needs, with a config that builds only its page
    (not even the home page, whose snippets belong to another chapter)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("ad_core", "bookkit", "overrides"):
        if (REPO_ROOT / folder).is_dir():  # overrides: the theme's custom_dir, if the config has one
            shutil.copytree(REPO_ROOT / folder, destination / folder, ignore=ignore)
    shutil.copytree(REPO_ROOT / SNIPPET_DIR, destination / SNIPPET_DIR, ignore=ignore)
    (destination / "docs" / "part1").mkdir(parents=True)
    shutil.copy2(REPO_ROOT / "docs" / PAGE, destination / "docs" / PAGE)

    config = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    # Only this chapter is copied, so links to other pages cannot resolve here: report them as
    # info. Snippet failures stay warnings, and --strict turns them into a failed build.
    config = re.sub(r"(?m)^(\s+)(not_found|anchors|omitted_files): warn$", r"\1\2: info", config)
    config = config[: config.index("\nnav:")] + (f"\nnav:\n  - Broadcasting in reverse: {PAGE}\n")
    (destination / "mkdocs.yml").write_text(config, encoding="utf-8")
    return destination


def patch_unbroadcast(project: Path, pattern: str, replacement: str) -> None:
    """Replace `pattern` once, inside the body of `unbroadcast` only; fail if it is not there."""
    vjps = project / "ad_core" / "numpy" / "vjps.py"
    source = vjps.read_text(encoding="utf-8")
    # CPython 3.11's ast module is not safe to call from several threads at once ("AST
    # constructor recursion depth mismatch"), and the copies are prepared in parallel.
    with _AST_LOCK:
        tree = ast.parse(source)
    function = next(
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "unbroadcast"
    )
    lines = source.splitlines(keepends=True)
    start, end = function.lineno - 1, function.end_lineno
    body = "".join(lines[start:end])
    patched_body, count = re.subn(pattern, replacement, body)
    assert count == 1, f"expected one match of {pattern!r} in unbroadcast, found {count}"
    vjps.write_text("".join(lines[:start]) + patched_body + "".join(lines[end:]), encoding="utf-8")


def environment(project: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project), os.environ.get("PYTHONPATH", "")]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "NO_MKDOCS_2_WARNING": "1",
    }


def run(project: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=project,
        env=environment(project),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )


def failing_snippets(project: Path, names: set[str]) -> dict[str, str]:
    """Run the named snippets of the chapter standalone (in parallel); return
    {file name: stderr} of those that failed."""
    names = sorted(names)
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        results = list(pool.map(lambda name: run(project, str(SNIPPET_DIR / name)), names))
    return {name: r.stderr for name, r in zip(names, results, strict=True) if r.returncode}


_AST_LOCK = threading.Lock()
ALL_MUST_FAIL = set().union(*(must_fail for _, _, must_fail in BREAKAGES.values()))


def build(project: Path) -> subprocess.CompletedProcess:
    return run(project, "-m", "mkdocs", "build", "--strict", "-d", str(project / "site"))


@dataclass
class Outcome:
    project: Path
    failures: dict[str, str]  # snippet file name -> stderr, for the snippets that failed
    build: subprocess.CompletedProcess


def prepare_and_run(name: str, root: Path) -> Outcome:
    """Copy the project, apply the breakage `name` ("intact": none), run the snippets that a
    breakage must fail standalone, and build the copy."""
    project = copy_project(root / name)
    if name == "intact":
        snippets = ALL_MUST_FAIL
    else:
        pattern, replacement, snippets = BREAKAGES[name]
        patch_unbroadcast(project, pattern, replacement)
    return Outcome(project, failing_snippets(project, snippets), build(project))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """The intact copy and one copy per breakage, prepared and run in parallel (to keep the
    wall time down: each strict build executes the whole chapter)."""
    root = tmp_path_factory.mktemp("break-unbroadcast")
    names = ["intact", *sorted(BREAKAGES)]
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        return dict(zip(names, pool.map(lambda name: prepare_and_run(name, root), names), strict=True))


def test_the_copy_is_what_runs_and_builds_when_intact(outcomes: dict[str, Outcome]) -> None:
    """The control: the unpatched copy imports its own engine, and its snippets and build pass,
    so any failure below comes from the patch."""
    intact = outcomes["intact"]
    code = "import ad_core, bookkit; print(ad_core.__file__, bookkit.__file__)"
    where = run(intact.project, "-c", code)
    assert where.returncode == 0, where.stderr
    assert all(str(intact.project) in path for path in where.stdout.split()), where.stdout
    assert intact.failures == {}
    assert intact.build.returncode == 0, intact.build.stderr


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_unbroadcast_fails_the_snippets_and_the_build(
    breakage: str, outcomes: dict[str, Outcome]
) -> None:
    outcome = outcomes[breakage]
    must_fail = BREAKAGES[breakage][2]
    missing = must_fail - set(outcome.failures)
    assert not missing, f"{breakage}: these snippets still pass: {sorted(missing)}"
    for name, stderr in outcome.failures.items():
        # A real check failed (an assert or the engine's shape check), not an import problem.
        assert re.search(r"^(AssertionError|ValueError)", stderr, re.MULTILINE), (name, stderr)

    log = outcome.build.stderr + outcome.build.stdout
    assert outcome.build.returncode != 0, f"{breakage}: the strict build passed:\n{log}"
    assert PAGE in log, f"{breakage}: the build log does not name the page:\n{log}"
    assert any(f"{SNIPPET_DIR.as_posix()}/{name}" in log for name in outcome.failures), (
        f"{breakage}: the build log names none of the failing snippets {sorted(outcome.failures)}:\n{log}"
    )
