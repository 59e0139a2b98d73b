"""Session fixtures shared by the whole suite.

`built_site` runs one strict MkDocs build of the whole book per test session, into a
temporary folder, and hands its path to every test that reads the built pages.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bookkit.testing import mkdocs_build


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole book, built once per session with `mkdocs build --strict`.

    While you work on the browser test, `BOOK_BUILT_SITE=/tmp/site-mine pytest ...` reuses a
    site you built yourself instead of building again.
    """
    prebuilt = os.environ.get("BOOK_BUILT_SITE")
    if prebuilt:
        if not (Path(prebuilt) / "index.html").is_file():
            pytest.fail(f"BOOK_BUILT_SITE={prebuilt} holds no built site", pytrace=False)
        return Path(prebuilt)
    site = tmp_path_factory.mktemp("site")
    result = mkdocs_build(None, site)
    if result.returncode != 0:
        pytest.fail(
            f"`mkdocs build --strict` failed with exit code {result.returncode}.\n"
            f"--- mkdocs log ---\n{result.stderr}\n--- stdout ---\n{result.stdout}",
            pytrace=False,
        )
    return site
