"""Fixtures for the chapter test files: `tests/snippets/test_<name>.py` is about the nav page
named `<name>` (`bookkit.testing.page_of_test`: `test_tracing.py` → `part1/tracing.md`), and
`text` / `html` read that page from the session's built site."""

from __future__ import annotations

from pathlib import Path

import pytest

from bookkit.testing import page_html, page_of_test, page_text


def _page_of(request: pytest.FixtureRequest) -> str:
    try:
        return page_of_test(request.module.__file__).url
    except LookupError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="module")
def text(built_site: Path, request: pytest.FixtureRequest) -> str:
    """The visible text of the test file's page (`bookkit.testing.page_text`)."""
    return page_text(built_site, _page_of(request))


@pytest.fixture(scope="module")
def html(built_site: Path, request: pytest.FixtureRequest) -> str:
    """The raw HTML of the test file's page (`bookkit.testing.page_html`)."""
    return page_html(built_site, _page_of(request))
