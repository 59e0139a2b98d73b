"""Checks every page of the built book shares: each executed block rendered, and each chapter
ends with collapsible exercises."""

from __future__ import annotations

from pathlib import Path

import pytest

from bookkit.testing import page_html, page_text

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(
    str(path.relative_to(DOCS).with_suffix("")) + "/"
    for path in DOCS.rglob("*.md")
    if path.name != "index.md"
)
CHAPTERS = [page for page in PAGES if page.startswith("part")]


def test_the_page_list_covers_every_part() -> None:
    assert {page.split("/")[0] for page in CHAPTERS} == {"part1", "part2", "part3"}
    assert len(CHAPTERS) == 16


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
