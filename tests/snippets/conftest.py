"""Fixtures for the chapter test files: each file names its page in a module constant `PAGE`
(`PAGE = "part1/tracing/"`), and `text` / `html` read that page from the session's built site."""

from __future__ import annotations

from pathlib import Path

import pytest

from bookkit.testing import page_html, page_text


def _page_of(request: pytest.FixtureRequest) -> str:
    page = getattr(request.module, "PAGE", None)
    if not isinstance(page, str):
        pytest.fail(f"{request.module.__name__} uses the page fixtures but defines no PAGE", pytrace=False)
    return page


@pytest.fixture(scope="module")
def text(built_site: Path, request: pytest.FixtureRequest) -> str:
    """The visible text of the module's `PAGE` (`bookkit.testing.page_text`)."""
    return page_text(built_site, _page_of(request))


@pytest.fixture(scope="module")
def html(built_site: Path, request: pytest.FixtureRequest) -> str:
    """The raw HTML of the module's `PAGE` (`bookkit.testing.page_html`)."""
    return page_html(built_site, _page_of(request))
