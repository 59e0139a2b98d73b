"""Run the checker command exactly as a reader types it, and keep what it printed.

The page shows the real output of ``python -m snippets.your_own_backward._check_backward FILE``,
run at build time in a fresh interpreter from the repository's root, so that what the reader
sees is what the command prints, exit status included.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bookkit import load_snippet_module
from bookkit.snippet_modules import REPO_ROOT

HERE = Path(__file__).resolve().parent
CHECKER_MODULE = ".".join((*HERE.relative_to(REPO_ROOT).parts, "_check_backward"))
checker = load_snippet_module(HERE / "_check_backward.py")


@dataclass(frozen=True)
class CheckerRun:
    """One run of the checker command."""

    command: str
    stdout: str
    returncode: int

    def shown(self) -> str:
        """The terminal session a reader would see: the prompt line, the output, the status."""
        return f"$ {self.command}\n{self.stdout.rstrip()}\n$ echo $?\n{self.returncode}"


def run_checker(file_name: str) -> CheckerRun:
    """Run the checker on ``snippets/your_own_backward/<file_name>`` in a fresh interpreter."""
    target = (HERE / file_name).relative_to(REPO_ROOT).as_posix()
    completed = subprocess.run(
        [sys.executable, "-m", CHECKER_MODULE, target],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if completed.returncode not in (0, 1):
        raise RuntimeError(f"the checker failed on {target}: {completed.stderr.strip()}")
    return CheckerRun(f"python -m {CHECKER_MODULE} {target}", completed.stdout, completed.returncode)


def report_rows(stdout: str) -> dict[str, str]:
    """The checker's table lines by tensor name (the first word of each line)."""
    return {line.split()[0]: line for line in stdout.splitlines() if " | exact: " in line}



SOLUTION_SOURCE = (HERE / "_solution.py").read_text(encoding="utf-8")


def edited_solution(*edits: tuple[str, str]) -> str:
    """The worked solution's source with each ``(old, new)`` text replaced; each ``old`` occurs once."""
    source = SOLUTION_SOURCE
    for old, new in edits:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


def check_edited(*edits: tuple[str, str], rtol: float | None = None) -> tuple[str, bool]:
    """The checker's report on the worked solution with the edits made (with ``--rtol rtol`` if
    given), and whether it passes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "attempt.py"
        path.write_text(edited_solution(*edits), encoding="utf-8")
        return checker.check_file(path) if rtol is None else checker.check_file(path, rtol)


def edited_backward(*edits: tuple[str, str]):
    """The ``backward`` function of the worked solution with the edits made."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "attempt.py"
        path.write_text(edited_solution(*edits), encoding="utf-8")
        return load_snippet_module(path).backward


def flagged(report: str) -> list[str]:
    """The rows of a report that do not agree within the tolerances, in report order."""
    return [name for name, line in report_rows(report).items() if "| approximate: False" in line]


def not_bit_equal(report: str) -> list[str]:
    """The rows of a report whose exact column is False, in report order."""
    return [name for name, line in report_rows(report).items() if "| exact: False" in line]
