"""bookkit.exec_cache: during `mkdocs serve` a block's output is reused only while everything it
read (its files, the engine, bookkit) is byte-identical; any edit runs it again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bookkit import exec_cache


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository of its own (engine, bookkit, one snippet), with the cache on and empty."""
    for name in ("ad_core/core.py", "bookkit/claims.py", "snippets/ch/data.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"# {name}\n", encoding="utf-8")
    monkeypatch.setattr(exec_cache, "REPO_ROOT", tmp_path.resolve())
    monkeypatch.setattr(exec_cache, "ENABLED", True)
    monkeypatch.setattr(exec_cache, "_entries", {})
    monkeypatch.setattr(exec_cache, "_hash_memo", {})
    exec_cache.new_build()
    yield tmp_path.resolve()
    exec_cache.new_build()


class Block:
    """A block that reads the snippet's data file (or runs `command`) and counts its runs."""

    def __init__(self, repo: Path, command: list[str] | None = None) -> None:
        self.repo, self.command, self.runs = repo, command, 0

    def __call__(self) -> str:
        self.runs += 1
        if self.command:
            subprocess.run(self.command, check=True, capture_output=True, cwd=self.repo)
        return (self.repo / "snippets/ch/data.txt").read_text(encoding="utf-8")


def _build(block: Block, code: str = "print(data)") -> str:
    exec_cache.new_build()  # each rebuild of `mkdocs serve` reads the trees again
    return exec_cache.run_cached(block, code, {"id": None}, dict, lambda counts: None)


def _edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")


def test_unchanged_block_is_reused(repo: Path) -> None:
    block = Block(repo)
    assert _build(block) == _build(block)
    assert block.runs == 1


@pytest.mark.parametrize("edited", ["snippets/ch/data.txt", "ad_core/core.py", "bookkit/claims.py"])
def test_an_edit_to_what_the_block_read_or_to_the_engine_or_bookkit_runs_it_again(
    repo: Path, edited: str
) -> None:
    block = Block(repo)
    _build(block)
    _edit(repo / edited)
    shown = _build(block)
    assert block.runs == 2, f"an edit to {edited} served the stale output"
    assert shown == (repo / "snippets/ch/data.txt").read_text(encoding="utf-8")


def test_a_new_engine_module_runs_every_block_again(repo: Path) -> None:
    block = Block(repo)
    _build(block)
    (repo / "ad_core/added.py").write_text("x = 1\n", encoding="utf-8")
    _build(block)
    assert block.runs == 2


def test_another_code_runs_again(repo: Path) -> None:
    block = Block(repo)
    _build(block, "print(data)")
    _build(block, "print(data, 2)")
    assert block.runs == 2


def test_mkdocs_build_runs_every_block(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exec_cache, "ENABLED", False)
    block = Block(repo)
    _build(block)
    _build(block)
    assert block.runs == 2


def test_python_dash_c_that_reads_no_file_is_reused(repo: Path) -> None:
    block = Block(repo, [sys.executable, "-c", "import sys; print(sys.getrecursionlimit())"])
    _build(block)
    _build(block)
    assert block.runs == 1


@pytest.mark.parametrize("command", [
    [sys.executable, "-c", "print(open('snippets/ch/data.txt').read())"],
    ["true"],  # another program reads what it likes
])
def test_a_process_that_may_read_files_is_never_reused(repo: Path, command: list[str]) -> None:
    block = Block(repo, command)
    _build(block)
    _build(block)
    assert block.runs == 2


def test_forget_changed_sources_drops_the_engine_after_an_edit(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exec_cache, "_imported", None)
    modules = dict(sys.modules)
    monkeypatch.setattr(sys, "modules", modules)  # the real engine stays imported for the other tests
    modules["ad_core.fake_rule"] = modules["_bookkit_snippet_fake"] = sys  # any module object
    exec_cache.forget_changed_sources()  # the first build: remembers the sources
    assert "ad_core.fake_rule" in modules
    exec_cache.forget_changed_sources()  # nothing changed
    assert "ad_core.fake_rule" in modules
    _edit(repo / "ad_core/core.py")
    exec_cache.forget_changed_sources()
    assert "ad_core.fake_rule" not in modules and "_bookkit_snippet_fake" not in modules
    assert exec_cache.__name__ in modules
