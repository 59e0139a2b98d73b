"""The checker of "Your own backward pass": its command, its exit status, and what it reports on
the exercise as given, a solution, an attempt that raises, and one that misnames a gradient."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

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
    """A `backward` that returns a name the model has no tensor for (here "dC", a typo for "C")."""
    returned = 'return {name: cells[f"d{name}"] for name in GRADIENTS if f"d{name}" in cells}'
    path = _attempt(tmp_path, returned, "return {**{" + returned[len("return {"):] + ', "dC": dC}')
    report, ok = checker.check_file(path)
    assert not ok and "names that `reference` lacks: ['dC']" in report


def test_every_file_returns_exactly_the_model_gradients() -> None:
    """The template, the solution and the wrong attempt list the checker's names, in its order."""
    for name in ("_exercise.py", "_solution.py", "_wrong_attempt.py"):
        module = load_snippet_module(FOLDER / name)
        assert module.GRADIENTS == checker.BACKWARD_ORDER, name


def test_a_scratch_local_named_like_a_gradient_is_ignored(tmp_path: Path) -> None:
    """Before, every local `d*` was returned, so a reader's `dtmp` made the checker raise."""
    path = _attempt(tmp_path, "    dh = dlogits @ W2.T\n", "    dh = dlogits @ W2.T\n    dtmp = 2.0 * dh\n")
    report, ok = checker.check_file(path)
    assert ok, report
    assert report.rstrip().endswith(f"{len(checker.BACKWARD_ORDER)} of {len(checker.BACKWARD_ORDER)} "
                                    "gradients agree")


def test_a_misspelt_cell_is_reported_missing_not_passed(tmp_path: Path) -> None:
    path = _attempt(tmp_path, "    dW1 = embcat.T @ dhprebn\n", "    dW1x = embcat.T @ dhprebn\n")
    report, ok = checker.check_file(path)
    assert not ok
    rows = {row.split()[0]: row for row in report.splitlines() if " | exact: " in row}
    assert "MISSING" in rows["W1"] and "dW1x" not in report


def test_lecture_cmp_passes_a_keepdims_gradient_that_compare_gradients_flags() -> None:
    """The `cmp` of Karpathy's "Becoming a Backprop Ninja" notebook, run in PyTorch 2.13:
    `torch.all(dt == t.grad)` and `torch.allclose(dt, t.grad)` broadcast, so the wrong attempt's
    `db2` of shape (1, 27) is exact and approximate against a (27,) gradient."""
    torch = pytest.importorskip("torch")
    from ad_core.test_util import compare_gradients

    def cmp(dt, grad):  # the notebook's cmp, returning its two verdicts instead of printing them
        ex = torch.all(dt == grad).item()
        app = torch.allclose(dt, grad)
        return ex, app

    example = checker.worked.worked_example()
    wrong = load_snippet_module(FOLDER / "_wrong_attempt.py")
    db2 = wrong.backward(example.params, example.cache, example.Xb, example.Yb)["b2"]
    assert db2.shape == (1, 27) and example.engine["b2"].shape == (27,)
    assert cmp(torch.tensor(db2), torch.tensor(example.engine["b2"])) == (True, True)
    assert compare_gradients({"b2": db2}, {"b2": example.engine["b2"]})[0].verdict == "shape mismatch"
    # a column (27, 1) is a shape mismatch too; cmp's broadcast to (27, 27) happens to say False
    column = db2.reshape(27, 1)
    assert compare_gradients({"b2": column}, {"b2": example.engine["b2"]})[0].verdict == "shape mismatch"
    assert cmp(torch.tensor(column), torch.tensor(example.engine["b2"])) == (False, False)
    # the page's small example too
    with contextlib.redirect_stdout(io.StringIO()):
        small = load_snippet_module(FOLDER / "compare_gradients_example.py")
    assert cmp(torch.tensor(small.mine["b"]), torch.tensor(small.reference["b"])) == (True, True)


COMPACT_DLOGITS = (  # the lecture's fused cross-entropy gradient, in NumPy
    "    dlogits = np.exp(logits - logits.max(axis=1, keepdims=True))\n"
    "    dlogits /= dlogits.sum(axis=1, keepdims=True)\n"
    "    dlogits[np.arange(n), Yb] -= 1.0\n"
    "    dlogits /= n\n"
)


@pytest.mark.parametrize(("old", "new", "first"), [
    ("dbndiff2 = np.ones_like(bndiff2) * dbnvar * (1.0 / (n - 1))",
     "dbndiff2 = np.ones_like(bndiff2) * dbnvar / (n - 1)", "bndiff2"),
    ("dcounts_sum = -(counts_sum**-2) * dcounts_sum_inv",
     "dcounts_sum = -dcounts_sum_inv / counts_sum**2", "counts_sum"),
    ("dbnvar = -0.5 * (bnvar + BN_EPS) ** -1.5 * dbnvar_inv",
     "dbnvar = -0.5 * bnvar_inv**3 * dbnvar_inv", "bnvar"),
    ("dW1 = embcat.T @ dhprebn", "dW1 = np.einsum('ni,nj->ij', embcat, dhprebn)", "W1"),
    ("    dlogits = dnorm_logits.copy()  # first use of logits\n"
     "    dlogits[np.arange(n), np.argmax(logits, axis=1)] += dlogit_maxes[:, 0]  # second: the max\n",
     COMPACT_DLOGITS, "logits"),
])
def test_a_right_line_written_differently_passes_but_is_not_bit_equal(
    tmp_path: Path, old: str, new: str, first: str
) -> None:
    """The page: "A right line written differently is usually only close to the engine's", so the
    exact column points at a wrong line only when the right lines match the engine's operations."""
    report, ok = checker.check_file(_attempt(tmp_path, old, new))
    rows = {row.split()[0]: row for row in report.splitlines() if " | exact: " in row}
    assert ok, report
    unequal = [name for name in checker.BACKWARD_ORDER if "exact: False" in rows[name]]
    assert unequal and unequal[0] == first


def test_the_rtol_option_moves_the_first_flagged_row_to_the_wrong_line(tmp_path: Path) -> None:
    """A wrong `BN_EPS` below the default tolerance plus a right line not bit-equal to the engine's:
    the default flags only `W1`; `--rtol 1e-6` flags `bnvar`, the wrong line, first."""
    path = _attempt(tmp_path, "dcounts_sum = -(counts_sum**-2) * dcounts_sum_inv",
                    "dcounts_sum = -dcounts_sum_inv / counts_sum**2")
    path.write_text(path.read_text().replace("BN_EPS = 1e-5 ", "BN_EPS = 1.2e-5 "))
    default = run_python(["-m", MODULE, str(path)], {}, 120)
    tight = run_python(["-m", MODULE, "--rtol", "1e-6", str(path)], {}, 120)
    assert default.returncode == 1 and default.stdout.rstrip().endswith("the first that does not: W1 (wrong)")
    assert tight.returncode == 1, tight.stderr
    assert tight.stdout.rstrip().endswith("the first that does not: bnvar (wrong)")
