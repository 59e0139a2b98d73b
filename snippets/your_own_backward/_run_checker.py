"""Run the checker command exactly as a reader types it, and keep what it printed.

The page shows the real output of ``python -m snippets.your_own_backward._check_backward FILE``,
run at build time in a fresh interpreter from the repository's root, so that what the reader
sees is what the command prints, exit status included.
"""

from __future__ import annotations

import subprocess
import sys
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
