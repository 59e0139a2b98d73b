"""Session fixtures shared by the whole suite.

`built_site` runs one strict MkDocs build of the whole book per test session, into a
temporary folder, and hands its path to every test that reads the built pages.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bookkit.testing import mkdocs_build, wait_for_build


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole book, built once per session with `mkdocs build --strict`.

    While you work on the browser test, `BOOK_BUILT_SITE=/tmp/site-mine pytest ...` reuses a
    site you built yourself instead of building again. With `BOOK_SITE_BUILDING=1` as well, the
    site is still being built (`make test`), and the fixture waits for the build to finish.
    """
    prebuilt = os.environ.get("BOOK_BUILT_SITE")
    if prebuilt and os.environ.get("BOOK_SITE_BUILDING"):
        # `make test` builds the site beside the suite (`python -m bookkit.testing build`):
        # the tests that need no site run meanwhile, the first one that needs it waits here.
        status = wait_for_build(Path(prebuilt))
        if status["returncode"] != 0:
            pytest.fail(
                f"`mkdocs build --strict` failed with exit code {status['returncode']} "
                f"(make test prints its log).\n--- end of the mkdocs log ---\n{status['log'][-3000:]}",
                pytrace=False,
            )
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
