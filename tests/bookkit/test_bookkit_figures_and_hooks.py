"""svg_figure is deterministic; the hook maps executed lines back to snippet files."""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from bookkit import hooks, svg_figure
from bookkit.testing import page_text


def _figure(seed: int):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(np.random.default_rng(seed).standard_normal(20))
    ax.set_title("noise")
    return fig


def test_svg_figure_is_byte_identical_across_calls() -> None:
    first, second = svg_figure(_figure(0), alt="noise"), svg_figure(_figure(0), alt="noise")
    assert first == second
    assert first.startswith('<figure class="bk-figure"') and "<svg" in first
    assert "<?xml" not in first and "\n\n" not in first
    assert 'aria-label="noise"' in first
    assert svg_figure(_figure(1)) != first


def test_executed_fences_map_lines_to_files(tmp_path: Path, monkeypatch) -> None:
    snippet = tmp_path / "snippets" / "demo" / "x.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text(
        "import math\n# --8<-- [start:body]\n    y = math.pi\n    print(y)\n# --8<-- [end:body]\n"
    )
    monkeypatch.setattr(hooks._state, "base_paths", [tmp_path])
    page = (
        "# T\n\n```python\nnot executed\n```\n\n"
        '!!! note\n\n    ```python exec="on"\n    --8<-- "snippets/demo/x.py:body"\n    ```\n\n'
        '```python exec="1"\n--8<-- "snippets/demo/x.py"\nprint("inline")\n```\n'
    )
    fences = hooks._executed_fences(page, "docs/t.md")
    assert len(fences) == 2
    assert fences[0].origins == [("snippets/demo/x.py", 3), ("snippets/demo/x.py", 4)]
    assert fences[0].texts == ["    y = math.pi", "    print(y)"]
    assert fences[1].origins == [
        ("snippets/demo/x.py", 1),
        ("snippets/demo/x.py", 3),
        ("snippets/demo/x.py", 4),
        ("docs/t.md", page.splitlines().index('print("inline")') + 1),
    ]
    assert fences[1].snippet_files == ["snippets/demo/x.py"]


def test_a_block_that_runs_one_snippet_file_gets_its_file(tmp_path: Path, monkeypatch) -> None:
    """The build gives a block `__file__` only when every line it runs comes from one file."""
    snippet = tmp_path / "snippets" / "demo" / "x.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text("from pathlib import Path\nprint(Path(__file__).name)\n")
    monkeypatch.setattr(hooks._state, "base_paths", [tmp_path])
    page = (
        '```python exec="on"\n--8<-- "snippets/demo/x.py"\n```\n\n'
        '```python exec="on"\n--8<-- "snippets/demo/x.py"\nprint("typed in the page")\n```\n'
    )
    whole_file, with_page_lines = hooks._executed_fences(page, "docs/t.md")
    assert hooks._snippet_file_of(whole_file) == snippet.resolve()
    assert hooks._snippet_file_of(with_page_lines) is None
    assert hooks._snippet_file_of(None) is None

    hooks._give_blocks_their_file()
    from markdown_exec._internal.formatters import python as exec_python

    monkeypatch.setattr(hooks._state, "current", whole_file)
    namespace: dict = {}
    exec_python.exec_python("seen = __file__", "<code block: n1>", namespace)
    assert namespace["seen"] == str(snippet.resolve())


def test_page_text_reads_the_article(tmp_path: Path) -> None:
    page = tmp_path / "part1" / "x" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(
        "<html><body><nav>Navigation</nav><article class='md-content__inner md-typeset'>"
        "<h1>Title</h1><p>Some <code>x</code>\n text</p><script>var a;</script>"
        "<table><tr><td>1</td> <td>2</td></tr></table></article></body></html>"
    )
    text = page_text(tmp_path, "part1/x/")
    assert text.splitlines() == ["Title", "Some x text", "| 1 | 2"]
    assert "Navigation" in page_text(tmp_path, "part1/x/", whole_page=True)


def test_assert_counter_counts_passing_asserts_as_they_run(monkeypatch) -> None:
    if sys.gettrace() is not None:
        pytest.skip("another tracer (debugger, coverage) is active; the counter stands aside")
    source = "total = 0\nfor i in range(5):\n    assert i >= 0\n    total += i\nassert total == 10\n"
    code = compile(source, "<code block: n1>", "exec")
    monkeypatch.setattr(hooks, "_state", hooks._BuildState())
    hooks._run_counting_asserts(lambda: exec(code, {}), source)
    assert hooks._state.asserts_executed == 6  # five loop iterations and the final check

    failing = "assert 1 == 1\nassert 1 == 2\n"
    failing_code = compile(failing, "<code block: n2>", "exec")
    with pytest.raises(AssertionError):
        hooks._run_counting_asserts(lambda: exec(failing_code, {}), failing)
    assert hooks._state.asserts_executed == 7
