"""The checker of "Your own backward pass": its command, its exit status, and what it reports on
the exercise as given, a solution, an attempt that raises, and one that misnames a gradient."""

from __future__ import annotations

from pathlib import Path

from bookkit import load_snippet_module
from bookkit.testing import REPO_ROOT, run_python

FOLDER = REPO_ROOT / "snippets" / "your_own_backward"
checker = load_snippet_module(FOLDER / "_check_backward.py")
MODULE = "snippets.your_own_backward._check_backward"


def _attempt(tmp_path: Path, old: str, new: str) -> Path:
    source = (FOLDER / "_solution.py").read_text(encoding="utf-8")
    assert source.count(old) == 1
    path = tmp_path / "attempt.py"
    path.write_text(source.replace(old, new), encoding="utf-8")
    return path


def test_checker_command_exit_status_is_zero_only_when_every_gradient_agrees() -> None:
    solution = run_python(["-m", MODULE, str(FOLDER / "_solution.py")], {}, 120)
    wrong = run_python(["-m", MODULE, str(FOLDER / "_wrong_attempt.py")], {}, 120)
    usage = run_python(["-m", MODULE], {}, 120)
    assert solution.returncode == 0, solution.stderr
    assert solution.stdout.rstrip().endswith("26 of 26 gradients agree")
    assert wrong.returncode == 1
    assert "b2 (shape mismatch)" in wrong.stdout.splitlines()[-1]
    assert usage.returncode == 2 and "usage:" in usage.stderr


def test_checker_reports_every_cell_of_the_exercise_as_not_filled_in() -> None:
    report, ok = checker.check_file(FOLDER / "_exercise.py")
    assert not ok
    assert report.count("NOT FILLED IN") == len(checker.BACKWARD_ORDER)


def test_checker_compares_what_was_computed_before_an_error(tmp_path: Path) -> None:
    path = _attempt(tmp_path, "dh = dlogits @ W2.T", "dh = dlogits @ W2")
    report, ok = checker.check_file(path)
    assert not ok
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "dh = dlogits @ W2" in text)
    assert f"backward() raised ValueError at line {line}" in report
    rows = {row.split()[0]: row for row in report.splitlines() if " | exact: " in row}
    assert all("exact: True" in rows[name] for name in checker.BACKWARD_ORDER[:8])
    assert all("MISSING" in rows[name] for name in checker.BACKWARD_ORDER[8:])


def test_checker_refuses_a_gradient_name_the_model_lacks(tmp_path: Path) -> None:
    path = _attempt(tmp_path, "    dC = np.zeros_like(C)\n", "    dC = np.zeros_like(C)\n    ddC = dC\n")
    report, ok = checker.check_file(path)
    assert not ok and "names that `reference` lacks: ['dC']" in report
