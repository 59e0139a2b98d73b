"""The strict build: it passes for the book, and it fails, naming the culprit, when a
snippet raises, an include is missing, or a link or an anchor is broken."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from bookkit.hooks import STAMP_PLACEHOLDER
from bookkit.testing import REPO_ROOT, mkdocs_build, nav_pages, page_text, project_config_copy

DOCS = REPO_ROOT / "docs"
EXEC_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*python\b.*\bexec=\"on\"", re.MULTILINE)


def _build_pages(tmp_path: Path, pages: dict[str, str], snippets: dict[str, str] | None = None):
    """Build `pages` (name → Markdown) with the project's config; snippets are written under
    `tmp_path` and included as `snippets/...` like the book's own."""
    docs = tmp_path / "docs"
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(textwrap.dedent(text), encoding="utf-8")
    for name, text in (snippets or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    nav = [{Path(name).stem: name} for name in pages]
    config = project_config_copy(tmp_path / "config", docs, nav=nav, snippet_dirs=(tmp_path,))
    return mkdocs_build(config, tmp_path / "site", cwd=tmp_path)


def _log(result) -> str:
    return result.stderr + result.stdout


# --- The book itself -------------------------------------------------------------------------


def test_strict_build_writes_every_page(built_site: Path) -> None:
    for page in sorted(DOCS.rglob("*.md")):
        relative = page.relative_to(DOCS).with_suffix("")
        url = "" if relative.name == "index" else relative.as_posix() + "/"
        assert (built_site / url / "index.html").is_file(), f"{page} was not built"


def test_build_stamp_counts_every_executed_fence(built_site: Path) -> None:
    home = (built_site / "index.html").read_text(encoding="utf-8")
    assert STAMP_PLACEHOLDER not in home
    text = page_text(built_site, "")
    match = re.search(r"(\d+) code blocks executed, from (\d+) snippet files", text)
    assert match, "the home page has no build stamp"
    fences = sum(len(EXEC_FENCE.findall(p.read_text(encoding="utf-8"))) for p in DOCS.rglob("*.md"))
    assert int(match.group(1)) == fences
    assert int(match.group(2)) == len(_files_included_by_exec_fences())
    asserts = re.search(r"(\d+) assert statements of the snippets' own code executed and passed", text)
    assert asserts and int(asserts.group(1)) > 0


def _files_included_by_exec_fences() -> set[str]:
    """The snippet files that executed fences include, read from the pages' Markdown."""
    fence = re.compile(
        r"^([ \t]*)(`{3,}|~{3,})[ \t]*python\b[^\n]*\bexec=\"on\"[^\n]*\n(.*?)^\1\2[ \t]*$",
        re.MULTILINE | re.DOTALL,
    )
    include = re.compile(r"""-{1,}8<-{1,}\s+["']?(snippets/[^"':\s]+\.py)""")
    files: set[str] = set()
    for page in DOCS.rglob("*.md"):
        for match in fence.finditer(page.read_text(encoding="utf-8")):
            files.update(include.findall(match.group(3)))
    return files


def test_every_page_is_in_the_nav() -> None:
    in_nav = {page.source for page in nav_pages()}
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages - in_nav == set(), "pages missing from the nav"
    assert in_nav - pages == set(), "nav entries without a page"


def test_home_page_links_every_page(built_site: Path) -> None:
    home = (built_site / "index.html").read_text(encoding="utf-8")
    article = home[home.index('class="md-content__inner') :]
    links = set(re.findall(r'href="([^"#]+)"', article))
    for page in sorted(DOCS.rglob("*.md")):
        relative = page.relative_to(DOCS).with_suffix("")
        if relative.name == "index":
            continue
        assert f"{relative.as_posix()}/" in links, f"the home page does not link {page.name}"


# --- The build fails, and says where -----------------------------------------------------------


def test_harness_builds_a_good_page(tmp_path: Path) -> None:
    # The failure tests below would pass for any broken harness; this one proves it builds.
    result = _build_pages(
        tmp_path,
        {
            "good.md": """\
            # Good

            ## A heading

            [back to the heading](#a-heading)

            ```python exec="on"
            --8<-- "snippets/demo/prints.py"
            ```
            """
        },
        {
            "snippets/demo/prints.py": """\
            from bookkit import checked, text

            value = 6 * 7
            print(text("The answer is {value}.", value=checked(value, against=sum([40, 2]))))
            """
        },
    )
    assert result.returncode == 0, _log(result)
    assert "The answer is 42." in page_text(tmp_path / "site", "good/")


def test_links_printed_by_snippets_are_converted_and_checked(tmp_path: Path) -> None:
    result = _build_pages(
        tmp_path,
        {
            "linking.md": """\
                # Linking

                ```python exec="on"
                --8<-- "snippets/demo/prints_link.py"
                ```
                """,
            "target.md": """\
                # Target

                ```python exec="on" idprefix=""
                --8<-- "snippets/demo/prints_heading.py"
                ```
                """,
        },
        {
            "snippets/demo/prints_link.py": 'print("See [the term](target.md#made-by-a-snippet).")\n',
            "snippets/demo/prints_heading.py": 'print("## Made by a snippet")\n',
        },
    )
    assert result.returncode == 0, _log(result)
    html = (tmp_path / "site" / "linking" / "index.html").read_text(encoding="utf-8")
    assert 'href="../target/#made-by-a-snippet"' in html


@pytest.mark.parametrize(
    ("printed_link", "culprit"),
    [("[gone](nowhere.md)", "nowhere.md"), ("[gone](target.md#not-made)", "not-made")],
)
def test_broken_link_printed_by_a_snippet_fails(tmp_path: Path, printed_link: str, culprit: str) -> None:
    result = _build_pages(
        tmp_path,
        {
            "linking.md": '# Linking\n\n```python exec="on"\n--8<-- "snippets/demo/link.py"\n```\n',
            "target.md": "# Target\n",
        },
        {"snippets/demo/link.py": f"print({printed_link!r})\n"},
    )
    log = _log(result)
    assert result.returncode != 0, log
    assert culprit in log


def test_raising_snippet_fails_naming_page_file_and_line(tmp_path: Path) -> None:
    snippet = """\
        import numpy as np

        # --8<-- [start:shown]
        values = np.arange(3.0)
        total = float(values.sum())
        # --8<-- [end:shown]
        assert total == 99.0, "the total is not 99"
        print(total)
        """
    failing_line = (
        textwrap.dedent(snippet).splitlines().index('assert total == 99.0, "the total is not 99"') + 1
    )
    result = _build_pages(
        tmp_path,
        {
            "chapter/broken.md": """\
            # Broken

            Some prose first.

            ```python exec="on"
            --8<-- "snippets/broken_demo/raises.py"
            ```
            """
        },
        {"snippets/broken_demo/raises.py": snippet},
    )
    log = _log(result)
    assert result.returncode != 0, log
    assert "page 'chapter/broken.md'" in log
    assert f"snippet 'snippets/broken_demo/raises.py' line {failing_line}" in log
    assert "the total is not 99" in log


def test_a_block_that_prints_an_unchecked_number_fails_the_build(tmp_path: Path) -> None:
    # The hook wraps markdown-exec's print with bookkit.claims.guard_printed (printed means
    # asserted); the serve cache and the per-build re-installation must not lose that wrapper.
    result = _build_pages(
        tmp_path,
        {"unchecked.md": '# Unchecked\n\n```python exec="on"\n--8<-- "snippets/demo/unchecked.py"\n```\n'},
        {"snippets/demo/unchecked.py": 'print(f"The answer is {6 * 7}.")\n'},
    )
    log = _log(result)
    assert result.returncode != 0, log
    assert "UncheckedClaim" in log
    assert "page 'unchecked.md'" in log


def test_missing_include_fails(tmp_path: Path) -> None:
    result = _build_pages(
        tmp_path,
        {
            "missing.md": """\
            # Missing

            ```python exec="on"
            --8<-- "snippets/does_not_exist/nothing_here.py"
            ```
            """
        },
    )
    log = _log(result)
    assert result.returncode != 0, log
    assert "snippets/does_not_exist/nothing_here.py" in log


@pytest.mark.parametrize(
    ("link", "culprit"),
    [
        ("[a page](no-such-page.md)", "no-such-page.md"),
        ("[an anchor](#no-such-heading)", "no-such-heading"),
        ("[an anchor elsewhere](other.md#not-there)", "not-there"),
    ],
)
def test_broken_link_fails(tmp_path: Path, link: str, culprit: str) -> None:
    result = _build_pages(
        tmp_path,
        {
            "links.md": f"# Links\n\n## A heading\n\nSee {link}.\n",
            "other.md": "# Other\n\n## Present\n",
        },
    )
    log = _log(result)
    assert result.returncode != 0, log
    assert culprit in log
