"""`make autograd-suite`'s list of deliberate differences is the README's (issue 17)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_runner():
    spec = importlib.util.spec_from_file_location("autograd_suite_run", ROOT / "tools/autograd_suite/run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_deliberate_difference_is_listed_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    differences = load_runner().DIFFERENCES
    assert differences
    for test_id in differences:
        assert f"| `{test_id}` |" in readme, f"README does not list {test_id}"


def test_the_readme_lists_no_difference_the_runner_does_not_know() -> None:
    readme = (ROOT / "README.md").read_text()
    listed = {line.split("`")[1] for line in readme.splitlines() if line.startswith("| `test_")}
    assert listed == set(load_runner().DIFFERENCES)


def test_shards_cover_every_test_file_once(tmp_path) -> None:
    runner = load_runner()
    (tmp_path / "tests").mkdir()
    for name, size in [("test_a.py", 500), ("test_b.py", 300), ("test_c.py", 250), ("conftest.py", 9),
                       ("_test_private.py", 9), ("numpy_utils.py", 9)]:
        (tmp_path / "tests" / name).write_text("x" * size)
    groups = runner.shards(tmp_path)
    files = sorted(Path(f).name for group in groups for f in group)
    assert files == ["test_a.py", "test_b.py", "test_c.py"]  # what pytest collects, each once
    assert len(groups) == runner.SHARDS
