"""Helpers for tests that look at the built site, and the book's page list read from the nav."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

_SKIPPED_TAGS = {"script", "style", "template", "noscript"}
_BLOCK_TAGS = {
    "p",
    "div",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "table",
    "br",
    "details",
    "summary",
    "figure",
    "section",
    "article",
    "ul",
    "ol",
    "blockquote",
}


class _VisibleText(HTMLParser):
    def __init__(self, whole_page: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.whole_page = whole_page
        self.parts: list[str] = []
        self._skip_depth = 0
        self._article_depth = 0
        self._in_content = whole_page
        self._pre_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag in _SKIPPED_TAGS:
            self._skip_depth += 1
        if tag == "pre":
            self._pre_depth += 1
        if not self.whole_page and tag == "article" and "md-content__inner" in classes:
            self._in_content = True
            self._article_depth = 1
        elif self._article_depth and tag == "article":
            self._article_depth += 1
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS and self._skip_depth:
            self._skip_depth -= 1
        if tag == "pre" and self._pre_depth:
            self._pre_depth -= 1
        if self._article_depth and tag == "article":
            self._article_depth -= 1
            if not self._article_depth:
                self._in_content = False
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_content and not self._skip_depth:
            # Outside <pre>, a newline in the HTML source is a space, as a browser shows it.
            self.parts.append(data if self._pre_depth else re.sub(r"\s+", " ", data))


def page_text(site: Path, page_url: str, whole_page: bool = False) -> str:
    """The text a reader sees in the built page at `page_url` (`"part1/tracing/"`, `""` for
    the home page): the article only, unless `whole_page` (navigation, header and footer too).
    Scripts and styles are dropped; blocks and table cells are separated by newlines and `|`.
    Math shows as its LaTeX source, because KaTeX renders it only in the browser."""
    path = Path(site) / page_url.strip("/") / "index.html"
    if not path.is_file():
        raise FileNotFoundError(f"no built page at {path}")
    parser = _VisibleText(whole_page)
    parser.feed(path.read_text(encoding="utf-8"))
    text = "".join(parser.parts)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


REPO_ROOT = Path(__file__).resolve().parent.parent
BUILD_TIMEOUT_SECONDS = 900
HOME_PAGE = "index.md"
HOME_NAME = "home"  # the home page's snippet folder and test file: snippets/home/, test_home.py


@dataclass(frozen=True)
class NavPage:
    """One page of the nav: its title, its Markdown file (relative to `docs/`) and the nav
    section it sits in (`"Part I · The engine"`; empty for a top-level entry)."""

    title: str
    source: str
    section: str = ""

    @property
    def url(self) -> str:
        """Where the page is built: `"part1/tracing/"`, `""` for the home page."""
        return "" if self.source == HOME_PAGE else self.source.removesuffix(".md") + "/"

    @property
    def name(self) -> str:
        """The page's file name with `_` for `-` (`broadcasting_in_reverse`; `home` for the home
        page): the name of its snippet folder and of its test file."""
        return HOME_NAME if self.source == HOME_PAGE else Path(self.source).stem.replace("-", "_")

    @property
    def snippet_folder(self) -> str:
        return f"snippets/{self.name}"

    @property
    def is_chapter(self) -> bool:
        """A chapter is a page of one of the nav's parts (`Part I · …`, `Part II · …`)."""
        return self.section.startswith("Part ")


def _nav(config: Path) -> list:
    """The `nav` of `config`. mkdocs.yml holds tags such as `!relative` and `!!python/name:`
    that only MkDocs resolves; the nav needs none of them, so they load as None."""
    import yaml

    class IgnoreTags(yaml.SafeLoader):
        pass

    IgnoreTags.add_multi_constructor("!", lambda loader, suffix, node: None)
    IgnoreTags.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    return yaml.load(Path(config).read_text(encoding="utf-8"), Loader=IgnoreTags)["nav"]


def nav_pages(config: Path = REPO_ROOT / "mkdocs.yml") -> list[NavPage]:
    """Every page of the nav of `config`, in the book's order."""
    pages: list[NavPage] = []

    def walk(entries: list, section: str) -> None:
        for entry in entries:
            ((title, value),) = entry.items() if isinstance(entry, dict) else ((None, entry),)
            if isinstance(value, list):
                walk(value, section or title)
            else:
                pages.append(NavPage(title or "", value, section))

    walk(_nav(config), "")
    return pages


def chapters(config: Path = REPO_ROOT / "mkdocs.yml") -> list[NavPage]:
    """The chapters of the nav of `config` (`NavPage.is_chapter`), in the book's order."""
    return [page for page in nav_pages(config) if page.is_chapter]


def page_of_test(test_file: str | Path, config: Path = REPO_ROOT / "mkdocs.yml") -> NavPage:
    """The nav page that the test file `tests/snippets/test_<name>.py` is about: the one whose
    `NavPage.name` is `<name>` (`test_broadcasting_in_reverse.py` → `part1/broadcasting-in-reverse.md`,
    `test_home.py` → `index.md`)."""
    stem = Path(test_file).stem
    if not stem.startswith("test_"):
        raise ValueError(f"{test_file} is not named test_<page>.py")
    name = stem.removeprefix("test_")
    matches = [page for page in nav_pages(config) if page.name == name]
    if len(matches) != 1:
        known = ", ".join(page.name for page in nav_pages(config))
        raise LookupError(
            f"{Path(test_file).name}: {len(matches)} nav pages are named {name!r} (names: {known})"
        )
    return matches[0]


def snippet_outputs_file(site_dir: Path) -> Path:
    """Where `mkdocs_build` has the hook write what each snippet printed in the build: next to
    the site, not in it, so it is never published."""
    return site_dir.with_name(site_dir.name + ".snippet-outputs.json")


# The hash seed of the build's process; a snippet run outside it uses another one, so output
# that depends on set or dict-of-str ordering shows as a difference.
BUILD_HASH_SEED = "2"


def mkdocs_build(config: Path | None, site_dir: Path, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    """Run `mkdocs build --strict` (with the project's `mkdocs.yml` when `config` is None) in a
    fresh interpreter, since markdown-exec keeps state between builds in one process, and
    return the finished process: `returncode`, and MkDocs' log in `stderr`. What each snippet
    printed is written to `snippet_outputs_file(site_dir)`."""
    arguments = ["-m", "mkdocs", "build", "--strict", "-d", str(site_dir)]
    if config is not None:
        arguments += ["-f", str(config)]
    environment = {
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONHASHSEED": BUILD_HASH_SEED,
        "BOOK_SNIPPET_OUTPUTS": str(snippet_outputs_file(Path(site_dir))),
    }
    return run_python(arguments, environment, BUILD_TIMEOUT_SECONDS, cwd=cwd)


def build_status_file(site_dir: Path) -> Path:
    """Where `build_for_tests` writes how the build ended (next to the site, like the outputs)."""
    return site_dir.with_name(site_dir.name + ".build-status.json")


def build_for_tests(site_dir: Path) -> int:
    """Build the book into `site_dir` for a test run that started beside the build, then write
    `build_status_file(site_dir)`: the exit code, the end of MkDocs' log and the seconds taken.
    The file appears whole (written, then renamed), so a test waiting for it never reads half."""
    started = time.perf_counter()
    try:
        result = mkdocs_build(None, site_dir)
        returncode, log = result.returncode, result.stderr[-20000:]
    except Exception as error:  # a timeout, say: the waiting tests must still hear of it
        returncode, log = 1, f"the build did not finish: {error!r}"
    seconds = round(time.perf_counter() - started, 1)
    status = build_status_file(site_dir)
    partial = status.with_suffix(".partial")
    partial.write_text(json.dumps({"returncode": returncode, "log": log, "seconds": seconds}), "utf-8")
    partial.replace(status)
    return returncode


def wait_for_build(site_dir: Path, timeout: float = BUILD_TIMEOUT_SECONDS) -> dict:
    """Wait until `build_for_tests` has finished building `site_dir`; return its status."""
    status = build_status_file(site_dir)
    deadline = time.monotonic() + timeout
    while not status.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no build of {site_dir} finished within {timeout:.0f} s ({status} missing)")
        time.sleep(0.2)
    return json.loads(status.read_text("utf-8"))


def run_python(
    arguments: list[str], environment: dict[str, str], timeout: float, cwd: Path = REPO_ROOT
) -> subprocess.CompletedProcess:
    """Run this interpreter (`sys.executable`) with `arguments` in a fresh process in `cwd`, with
    the current environment plus `environment` and no bytecode written, and return the finished
    process (`returncode`, and the text of `stdout` and `stderr`) whatever its exit code."""
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **environment, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=timeout,
        check=False,
    )


def project_config_copy(
    target_dir: Path,
    docs_dir: Path,
    nav: list | None = None,
    exclude_docs: str | None = None,
    snippet_dirs: tuple[Path, ...] = (),
    config_file: Path | None = None,
) -> Path:
    """Write a config that builds `docs_dir` with the project's settings, and return its path.

    MkDocs resolves `hooks:`, `!relative $config_dir`, `theme.custom_dir` and `watch` against
    the file that is loaded, so a config elsewhere cannot simply `INHERIT` the project's: this
    writes a copy of the project's `mkdocs.yml` with those made absolute (snippets resolve
    against the repository, then `snippet_dirs`), and a config that inherits it and sets
    `docs_dir`, `nav` and `exclude_docs`.
    """
    import json

    target_dir = Path(target_dir)
    target_dir.mkdir(parents=True, exist_ok=True)
    source = (config_file or REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    base_paths = [str(REPO_ROOT), *(str(Path(d).resolve()) for d in snippet_dirs)]
    source = source.replace("!relative $config_dir", ", ".join(json.dumps(p) for p in base_paths))
    source = source.replace("- bookkit/hooks.py", f"- {json.dumps(str(REPO_ROOT / 'bookkit' / 'hooks.py'))}")
    source = re.sub(
        r"^(\s*custom_dir:\s*)([^\s#]+)",
        lambda m: m.group(1) + json.dumps(str(REPO_ROOT / m.group(2))),
        source,
        flags=re.MULTILINE,
    )
    watch = re.search(r"^watch:\n((?:[ \t]+-[^\n]*\n)+)", source, flags=re.MULTILINE)
    if watch:
        absolute = re.sub(
            r"^([ \t]+-[ \t]+)([^\s#]+)",
            lambda m: m.group(1) + json.dumps(str(REPO_ROOT / m.group(2))),
            watch.group(1),
            flags=re.MULTILINE,
        )
        source = source[: watch.start(1)] + absolute + source[watch.end(1) :]
    parent = target_dir / "mkdocs-project-copy.yml"
    parent.write_text(source, encoding="utf-8")
    lines = [f"INHERIT: {json.dumps(str(parent))}", f"docs_dir: {json.dumps(str(Path(docs_dir).resolve()))}"]
    if nav is not None:
        lines.append(f"nav: {json.dumps(nav)}")
    if exclude_docs is not None:
        lines.append("exclude_docs: " + json.dumps(exclude_docs))
    child = target_dir / "mkdocs.yml"
    child.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return child


def page_html(site: Path, page_url: str) -> str:
    """The raw HTML of the built page at `page_url` (`"part1/tracing/"`, `""` for the home page),
    for checks on markup that `page_text` drops (anchors, `<svg>`, `<details>`, classes)."""
    path = Path(site) / page_url.strip("/") / "index.html"
    if not path.is_file():
        raise FileNotFoundError(f"no built page at {path}")
    return path.read_text(encoding="utf-8")


def shown(value: object) -> str:
    """`bookkit.fmt_array(value)` as `page_text` shows it: runs of whitespace collapsed."""
    from bookkit.formatting import fmt_array

    return " ".join(fmt_array(value).split())


def table_rows(text: str) -> list[list[str]]:
    """The cells of every table row in a page's visible text (`page_text`), stripped, in order.

    A row is a line that starts with `| `; the header row counts as a row too."""
    return [
        [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        for line in text.splitlines()
        if line.strip().startswith("| ")
    ]


def row_starting_with(text: str, first_cell: str) -> str:
    """The first table row of a page's visible text whose first cell is `first_cell`, as one
    line (`| a | b | c |`); fails the calling test when there is none."""
    rows = [line for line in text.splitlines() if line.startswith(f"| {first_cell} |")]
    assert rows, f"no table row starts with {first_cell!r}"
    return rows[0]


def table_row_pattern(*cells: str) -> re.Pattern[str]:
    """A pattern for a table row of a page's visible text that holds `cells` side by side, in
    order (it may hold more cells before or after them). Whitespace inside a cell is folded to
    one space, as `page_text` folds it; spaces around the `|` separators are optional."""
    folded = (re.escape(" ".join(cell.split())) for cell in cells)
    return re.compile(r"\|\s*" + r"\s*\|\s*".join(folded) + r"\s*(\||$)", re.MULTILINE)


def assert_table_row(text: str, *cells: str) -> None:
    """Fail unless a table row of the page text holds `cells` side by side (`table_row_pattern`)."""
    folded = [" ".join(cell.split()) for cell in cells]
    assert table_row_pattern(*cells).search(text), f"no table row {' | '.join(folded)} on the page"


def assert_hand_vs_engine_rows(
    text: str,
    names: Iterable[str],
    hand: Mapping[str, np.ndarray],
    engine: Mapping[str, np.ndarray],
    reference: Mapping[str, np.ndarray],
    rtol: float = 1e-9,
    atol: float = 1e-12,
) -> None:
    """Check a hand-vs-engine table (`bookkit.gradient_comparison.comparison_table`) on a page's visible
    text, one row `| d<name> | ...` per name: the row shows the hand-written gradient's shape;
    that gradient agrees with `reference` (from an engine the book does not use) to `rtol` and
    `atol`; the "exact" cell says whether it equals `engine`'s bit for bit; "approximate" says yes.
    """
    from bookkit.formatting import fmt_shape

    for name in names:
        row = row_starting_with(text, f"d{name}")
        assert fmt_shape(hand[name].shape) in row, row
        # The hand-written gradient is right by an engine the book does not use...
        np.testing.assert_allclose(hand[name], reference[name], rtol=rtol, atol=atol, err_msg=name)
        # ...and the page reports what the comparison with ad_core found.
        cells = row.split(" | ")
        exact = np.array_equal(hand[name], engine[name])
        assert cells[3].strip() == ("yes" if exact else "no"), row
        assert cells[4].strip() == "yes", row


def array_from_cell(cell: str) -> np.ndarray:
    """The 1-D float array a table cell shows as `fmt_array_inline` prints it (`[1. 2.5 -3.]`),
    for comparing a shown vector with a recomputed one within the printed precision."""
    inner = cell.strip().strip("`")
    if not (inner.startswith("[") and inner.endswith("]")):
        raise ValueError(f"not an array cell: {cell!r}")
    return np.array([float(value) for value in inner[1:-1].split()], dtype=float)


if __name__ == "__main__":
    # `python -m bookkit.testing build SITE`: the build `make test` starts beside the suite.
    if sys.argv[1:2] != ["build"] or len(sys.argv) != 3:
        sys.exit("usage: python -m bookkit.testing build SITE_DIR")
    sys.exit(build_for_tests(Path(sys.argv[2]).resolve()))
