"""`make autograd-suite`: HIPS/autograd 1.9.1's own test suite, run on autograd and on ad_core.

Downloads autograd's source distribution once (into the git-ignored `.cache/autograd-suite/`),
then runs every one of its test files twice with pytest: on the sdist's own `autograd`
package, and on `ad_core` through `shim.py`, which renames `autograd` to `ad_core` on import and
changes nothing else. It prints passed / failed / skipped per test file for both engines, then
every test autograd passes and ad_core does not. Each of those must be one of the deliberate
differences in `DIFFERENCES` (listed with the same reasons in the README); the exit status is 1
if one is not, or if a listed difference has started to pass, so the list stays true.

autograd's result depends only on the sdist and the installed NumPy, SciPy and Python, so it is
kept, keyed by their versions: in `recorded/` beside this file for the versions the project
installs today (committed, so a fresh clone does not run autograd's suite again), otherwise in
the cache folder after the first run. With other versions autograd's suite runs again; delete a
recorded file to record it afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path

VERSION = "1.9.1"
SDIST = f"autograd-{VERSION}.tar.gz"
SDIST_SHA256 = "7818c5c69ddf9efb7da74097bd741a4c7920133f41966f68537223a15ef798bc"
ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CACHE = ROOT / ".cache" / "autograd-suite"
RECORDED = HERE / "recorded"  # autograd's outcomes for one key, committed (see the docstring)
TIMEOUT = 300  # seconds for one engine's run; the suite takes well under a minute

# The tests autograd passes and ad_core deliberately does not: test id -> reason. The README
# (its section for HIPS/autograd users) lists the same ones; tests/engine/test_autograd_suite.py
# checks that it does.
DIFFERENCES: dict[str, str] = {
    "test_fft.py::test_rfftn_odd_not_implemented": (
        "the test asserts a limitation of autograd (no rule for real FFTs whose last axis has odd "
        "length); ad_core's rfft/rfftn rules are exact there too, checked against finite differences"),
    "test_wrappers.py::test_deprecated_defgrad_wrapper": (
        "autograd's deprecated primitive.defgrad (and primitive imported from autograd.core); "
        "use ad_core.extend.defvjp"),
    "test_wrappers.py::test_deprecated_defvjp_wrapper": (
        "autograd's deprecated method primitive.defvjp(fun(g, ans, vs, gvs, *args)); "
        "use ad_core.extend.defvjp with a curried rule"),
    "test_wrappers.py::test_deprecated_defvjp_is_zero_wrapper": (
        "autograd's deprecated primitive.defvjp_is_zero; pass None to ad_core.extend.defvjp"),
    "test_wrappers.py::test_deprecated_quick_grad_check_wrapper": (
        "autograd's deprecated autograd.util.quick_grad_check; use ad_core.test_util.check_grads"),
    "test_wrappers.py::test_wrapped_name_and_docs": (
        "the test pins autograd's docstring wording; the names are autograd's "
        "(grad_of_foo_wrt_argnum_1), the docstrings are the book's"),
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_sdist() -> Path:
    """The sdist in the cache, downloaded with pip only when it is not there yet."""
    path = CACHE / SDIST
    if not (path.exists() and _sha256(path) == SDIST_SHA256):
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", f"autograd=={VERSION}",
             "--no-binary", ":all:", "--no-deps", "-d", str(CACHE)],
            check=True,
        )
        if _sha256(path) != SDIST_SHA256:
            raise SystemExit(f"autograd-suite: {path} does not have the sha256 {SDIST_SHA256}")
    return path


def unpack(sdist: Path) -> Path:
    """`autograd/` and `tests/` of the sdist, unpacked once; returns the folder holding them."""
    folder = CACHE / f"autograd-{VERSION}"
    marker = folder / ".unpacked"
    if not marker.exists():
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers()
                       if m.name.split("/")[1:2] in (["autograd"], ["tests"])]
            tar.extractall(CACHE, members=members, filter="data")
        # An empty ini makes this folder pytest's rootdir, so neither the sdist's pyproject
        # (which requires pytest-cov and xdist) nor this repository's settings apply.
        (folder / "pytest.ini").write_text("[pytest]\n")
        marker.touch()
    return folder


SHARDS = 2  # pytest processes per engine: the machine running `make test` has two cores


def shards(folder: Path) -> list[list[str]]:
    """Every file pytest collects from autograd's `tests/` (`test_*.py`, as in autograd's own
    runs), split into `SHARDS` groups of about equal size, largest files first."""
    files = sorted((folder / "tests").glob("test_*.py"), key=lambda f: -f.stat().st_size)
    groups: list[list[Path]] = [[] for _ in range(SHARDS)]
    for file in files:
        min(groups, key=lambda g: sum(f.stat().st_size for f in g)).append(file)
    return [[str(f) for f in sorted(group)] for group in groups if group]


def _command(folder: Path, files: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "shim", "-p", "no:cacheprovider",
            "--continue-on-collection-errors", "-c", str(folder / "pytest.ini"), "-W", "ignore",
            "--rootdir", str(folder / "tests"), *files]


def start(engine: str, folder: Path, results: Path, files: list[str]) -> subprocess.Popen:
    # autograd's tests import each other (`from numpy_utils import ...`) from their folder,
    # which pytest puts on sys.path; the engine comes from PYTHONPATH.
    engine_path = folder if engine == "autograd" else ROOT
    env = {**os.environ, "AUTOGRAD_SUITE_ENGINE": engine, "AUTOGRAD_SUITE_RESULTS": str(results),
           "PYTHONPATH": os.pathsep.join([str(HERE), str(engine_path)]),
           "PYTHONDONTWRITEBYTECODE": "1"}
    log = open(results.with_suffix(".log"), "w")  # noqa: SIM115 (closed by the caller's wait)
    return subprocess.Popen(_command(folder, files), cwd=folder, env=env, stdout=log,
                            stderr=subprocess.STDOUT)


def start_all(engine: str, folder: Path, name: str) -> list[tuple[subprocess.Popen, Path]]:
    runs = []
    for index, files in enumerate(shards(folder)):
        results = CACHE / f"{name}.shard{index}.json"
        results.unlink(missing_ok=True)
        runs.append((start(engine, folder, results, files), results))
    return runs


def finish_all(runs: list[tuple[subprocess.Popen, Path]], engine: str) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for proc, results in runs:
        proc.wait(timeout=TIMEOUT)
        if not results.exists():
            log = results.with_suffix(".log").read_text()
            raise SystemExit(f"autograd-suite: the {engine} run wrote no results:\n{log[-3000:]}")
        outcomes.update(json.loads(results.read_text())["outcomes"])
    return outcomes


def reference_key() -> str:
    import numpy
    import scipy

    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return f"{SDIST_SHA256[:12]}-py{python}-np{numpy.__version__}-sp{scipy.__version__}"


def _file_of(nodeid: str) -> str:
    return nodeid.split("::")[0].rsplit("/", 1)[-1]


def compare(autograd: dict[str, str], ad_core: dict[str, str]) -> tuple[list, list, list]:
    """Rows per test file, then (test id, reason) of each difference, and the stale listed ones."""
    broken_files = {_file_of(n) for n, o in ad_core.items() if "::" not in n and o == "failed"}
    ad_core = dict(ad_core)
    for nodeid in autograd:  # tests in a file ad_core could not import count as failed
        if nodeid not in ad_core and _file_of(nodeid) in broken_files:
            ad_core[nodeid] = "failed"
    files = sorted({_file_of(n) for n in autograd} | {_file_of(n) for n in ad_core})
    rows = []
    for name in files:
        a = Counter(o for n, o in autograd.items() if _file_of(n) == name and "::" in n)
        b = Counter(o for n, o in ad_core.items() if _file_of(n) == name and "::" in n)
        rows.append((name, a, b))
    differences = []
    for nodeid, outcome in sorted(autograd.items()):
        if outcome == "passed" and ad_core.get(nodeid) != "passed":
            differences.append((nodeid, DIFFERENCES.get(_short(nodeid))))
    stale = [n for n in DIFFERENCES if ad_core.get(_long(n, autograd)) == "passed"]
    return rows, differences, stale


def _short(nodeid: str) -> str:
    return nodeid.split("tests/", 1)[-1]


def _long(short: str, outcomes: dict[str, str]) -> str:
    return next((n for n in outcomes if _short(n) == short), short)


def report(rows, differences, stale, seconds: float, cached: bool, reference: Path) -> int:
    def cell(c: Counter) -> str:
        return f"{c['passed']:4d} {c['failed']:4d} {c['skipped']:4d}"

    print(f"autograd {VERSION}'s test suite, on autograd and on ad_core (import autograd -> ad_core)")
    print(f"{'test file':24s} {'autograd: pass fail skip':>25s}   {'ad_core: pass fail skip':>24s}")
    total_a, total_b = Counter(), Counter()
    for name, a, b in rows:
        total_a.update(a)
        total_b.update(b)
        print(f"{name:24s} {'':11s}{cell(a)}   {'':10s}{cell(b)}")
    print(f"{'total':24s} {'':11s}{cell(total_a)}   {'':10s}{cell(total_b)}")
    unexpected = [n for n, reason in differences if reason is None]
    listed = [(n, r) for n, r in differences if r is not None]
    if listed:
        print(f"\n{len(listed)} deliberate differences (autograd passes, ad_core does not; see the README):")
        for nodeid, reason in listed:
            print(f"  {_short(nodeid)}: {reason}")
    for nodeid in unexpected[:40]:
        print(f"UNEXPECTED: autograd passes {_short(nodeid)}, ad_core does not")
    if len(unexpected) > 40:
        print(f"UNEXPECTED: ... and {len(unexpected) - 40} more; the log has each failure")
    for nodeid in stale:
        print(f"STALE: {nodeid} is listed as a difference but ad_core passes it")
    where = f"autograd's result from {reference.relative_to(ROOT)}" if cached else "both engines run"
    print(f"\n{seconds:.1f} s ({where}); logs in {CACHE.relative_to(ROOT)}/")
    return 1 if unexpected or stale else 0


def main() -> int:
    started = time.monotonic()
    folder = unpack(fetch_sdist())
    name = f"autograd-{reference_key()}.json"
    reference = RECORDED / name if (RECORDED / name).exists() else CACHE / name
    cached = reference.exists()
    mine = start_all("ad_core", folder, "ad_core")
    theirs = None if cached else start_all("autograd", folder, "autograd")  # all at once
    ad_core = finish_all(mine, "ad_core")
    if theirs is not None:
        reference.write_text(json.dumps({"engine": "autograd", "outcomes": finish_all(theirs, "autograd")}))
    autograd = json.loads(reference.read_text())["outcomes"]
    rows, differences, stale = compare(autograd, ad_core)
    return report(rows, differences, stale, time.monotonic() - started, cached, reference)


if __name__ == "__main__":
    sys.exit(main())
