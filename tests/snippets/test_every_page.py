"""Checks every page of the built book shares: each executed block rendered, and each chapter
ends with collapsible exercises. The page list is the nav of mkdocs.yml (`bookkit.testing`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bookkit.testing import REPO_ROOT, chapters, nav_pages, page_html, page_of_test, page_text

PAGES = [page.url for page in nav_pages()]
CHAPTERS = [page.url for page in chapters()]


def test_every_nav_part_has_chapters_and_every_chapter_a_snippet_folder() -> None:
    """The nav's parts hold the chapters; each chapter runs code from its own snippet folder,
    named like its page (`part1/fan-out.md` ↔ `snippets/fan_out/`)."""
    parts = {page.section for page in chapters()}
    assert parts and all(part.startswith("Part ") for part in parts)
    missing = [page.source for page in chapters() if not (REPO_ROOT / page.snippet_folder).is_dir()]
    assert missing == [], f"chapters without a snippet folder: {missing}"


def test_every_chapter_test_file_is_named_after_a_nav_page() -> None:
    """`tests/snippets/test_<name>.py` reads the page named `<name>` (the `text`/`html`
    fixtures); a file named after no page would fail only when a fixture asks for it."""
    generic = {"test_all_snippets.py", "test_every_page.py"}
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        if path.name not in generic:
            page_of_test(path)  # raises LookupError for a name the nav does not hold


@pytest.mark.parametrize("page", PAGES)
def test_every_executed_block_rendered(built_site: Path, page: str) -> None:
    text = page_text(built_site, page)
    # A raising block leaves a traceback in a non-strict build; an unrendered fence leaves backticks.
    assert "Traceback" not in text
    assert "```" not in text


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_ends_with_collapsible_exercises(built_site: Path, page: str) -> None:
    html = page_html(built_site, page)
    assert html.count('<details class="question"') >= 3


def full_listings(text: str) -> list[str]:
    """The symbols whose source a page lists in full: `show_source`'s caption ends with the line
    span; `show_excerpt`'s says which lines of which span, and where the full listing is."""
    import re

    return re.findall(r"(\S+\.py) · (\S+) · lines \d+\u2013\d+\s*$", text, flags=re.MULTILINE)


def test_each_engine_function_is_listed_in_full_on_one_page_only(built_site: Path) -> None:
    pages_of: dict[tuple[str, str], list[str]] = {}
    for page in PAGES:
        for listing in full_listings(page_text(built_site, page)):
            pages_of.setdefault(listing, []).append(page)
    repeated = {f"{path}::{name}": pages for (path, name), pages in pages_of.items() if len(pages) > 1}
    assert len(pages_of) > 20, "the full listings were not found: has show_source's caption changed?"
    assert repeated == {}


def test_the_listing_count_tells_a_full_listing_from_an_excerpt() -> None:
    page = ("ad_core/core.py · backward_pass · lines 257\u2013276\n\ncode\n"
            "ad_core/core.py · backward_pass · lines 273\u2013275 of 257\u2013276 "
            "(listed in full in x)\n")
    assert full_listings(page) == [("ad_core/core.py", "backward_pass")]
