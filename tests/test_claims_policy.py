"""The rules of issue "Every claim on every page is true", checked over the whole book:

- a page's own Markdown states no number (numbers come from snippets, which check them);
- no page refers to its sources or chapters in a way a reader cannot check;
- no snippet compares a printed value with the same expression (`checked(x, against=x)`) or
  asserts a comparison of an expression with itself.
"""

from __future__ import annotations

import ast
import itertools
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bookkit.claims import claims_in
from bookkit.testing import page_text

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = REPO_ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
SNIPPETS = sorted(p for p in (REPO_ROOT / "snippets").rglob("*.py") if "__pycache__" not in p.parts)

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_AUTOLINK = re.compile(r"<https?://[^>]+>")
# What a page's prose may type although it contains digits: labels and citations, not values.
# A version after a system's name (checked against the installed one below), the text of a link
# to an outside source (a cited title such as "Building makemore Part 4"), a DOI or a year, and
# references to the page's own exercises and steps by number.
SYSTEM_VERSION = re.compile(
    r"\b(?P<system>autograd|PyTorch|JAX|NumPy|SciPy|Python|mkdocs-material|markdown-exec) "
    r"(?P<version>\d+(?:\.\d+)+)\b"
)
_CITATION = re.compile(r"\[[^\]]*\]\(https?://[^)]*\)|\bdoi:\s*\S+|\b(?:19|20)\d\d\b")
_LABEL = re.compile(r"\b(?:[Ee]xercises?|[Ss]teps?|[Ss]hortcut|[Pp]art)\s+\d+(?:(?:,|\s+and|\s+or)\s+\d+)*\b")
# mkdocstrings blocks (`::: ad_core.grad` and their indented YAML options) are not prose.
_API_BLOCK = re.compile(r"^:::[^\n]*\n(?:[ \t]+[^\n]*\n)*", re.MULTILINE)
# Words that point a reader at something they cannot find or check.
UNCHECKABLE = re.compile(
    r"the seed's|the course's|the lecture's exercise|reference implementation|"
    r"\b[Cc]hapter \d+\b|\b(?:many|most|other|all|some) (?:deep[- ]learning )?frameworks\b"
)


def _prose(page: Path) -> str:
    markdown = page.read_text(encoding="utf-8")
    for pattern in (_COMMENT, _FENCE, _API_BLOCK, _AUTOLINK, SYSTEM_VERSION, _CITATION, _LABEL):
        markdown = pattern.sub("", markdown)
    return markdown


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_page_types_no_number_into_its_prose(page: Path) -> None:
    typed = claims_in(_prose(page))
    assert not typed, f"numbers typed into {page.name} (print them from a snippet): {typed}"


DISTRIBUTIONS = {"autograd": "autograd", "PyTorch": "torch", "JAX": "jax", "NumPy": "numpy", "SciPy": "scipy",
                 "mkdocs-material": "mkdocs-material", "markdown-exec": "markdown-exec"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_version_the_book_names_is_the_one_it_runs(built_site: Path, page: Path) -> None:
    """"PyTorch 2.13" or "autograd 1.9.1" on a page is the version installed for the tests."""
    from importlib import metadata

    url = page.relative_to(DOCS).with_suffix("").as_posix()
    shown = page_text(built_site, "" if url == "index" else url + "/")
    for match in SYSTEM_VERSION.finditer(shown):
        system, version = match["system"], match["version"]
        if system == "Python":
            installed = ".".join(map(str, __import__("sys").version_info[:3]))
        else:
            installed = metadata.version(DISTRIBUTIONS[system])
        named = f"{url}: {system} {version}, installed {installed}"
        assert (installed + ".").startswith(version + "."), named


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_page_names_its_sources_and_links_chapters_by_title(built_site: Path, page: Path) -> None:
    url = page.relative_to(DOCS).with_suffix("").as_posix()
    url = "" if url == "index" else url + "/"
    found = UNCHECKABLE.findall(page_text(built_site, url))
    assert not found, f"{url or 'home'}: {found}"


def _same_expression(first: ast.AST, second: ast.AST) -> bool:
    return ast.dump(first) == ast.dump(second)


def _self_comparisons(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        name = getattr(node, "func", None) and getattr(node.func, "id", getattr(node.func, "attr", ""))
        if isinstance(node, ast.Call) and name == "checked":
            against = [k.value for k in node.keywords if k.arg == "against"] or node.args[1:2]
            if node.args and against and _same_expression(node.args[0], against[0]):
                lines.append(node.lineno)
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            operands = [node.test.left, *node.test.comparators]
            if any(_same_expression(a, b) for a, b in itertools.pairwise(operands)):
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_no_snippet_compares_an_expression_with_itself(snippet: Path) -> None:
    lines = _self_comparisons(ast.parse(snippet.read_text(encoding="utf-8")))
    assert not lines, f"{snippet.name} lines {lines}: a check that compares an expression with itself"


def _hand_made_rendered(tree: ast.AST) -> list[int]:
    """Calls of `Rendered(...)` other than with a literal that states no claim (a separator for
    `Rendered("\\n").join(...)`): anything else would vouch for text no helper checked."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rendered":
            literal = node.args[0] if len(node.args) == 1 and not node.keywords else None
            if not (isinstance(literal, ast.Constant) and isinstance(literal.value, str)) or claims_in(
                literal.value
            ):
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_no_snippet_vouches_for_its_own_text(snippet: Path) -> None:
    lines = _hand_made_rendered(ast.parse(snippet.read_text(encoding="utf-8")))
    assert not lines, f"{snippet.name} lines {lines}: Rendered(...) of text no bookkit helper checked"


def test_the_self_comparison_check_can_fail() -> None:
    tree = ast.parse("checked(len(xs), against=len(xs))\nassert f(x) == f(x)\nchecked(a, against=b)\n")
    assert sorted(_self_comparisons(tree)) == [1, 2]
    made = ast.parse('Rendered("\\n").join(p)\nRendered(f"{x} rows")\nRendered("5 rows")\n')
    assert sorted(_hand_made_rendered(made)) == [2, 3]


# --- Claims about other systems ----------------------------------------------------------------

OTHER_SYSTEMS = re.compile(r"\b(?:PyTorch|JAX|TensorFlow|torch\.\w+|jax\.\w+)")
TESTED_MARKER = re.compile(r"tested:\s*(?P<file>tests/[\w/]+\.py)::(?P<test>\w+)")
# Headings, admonition and exercise titles name a topic; the claim is in the body under them.
_BLOCKS = {"p", "li", "td", "th", "dt", "dd", "figcaption"}
_TITLES = {"h1", "h2", "h3", "h4", "h5", "h6", "summary"}


class _Blocks(HTMLParser):
    """Each text block of a page's article with the external links and `tested:` markers in it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[dict] = []
        self.blocks: list[dict] = []
        self.in_code = 0
        self.in_title = 0
        self.title_tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("pre", "script", "style"):
            self.in_code += 1
        title = tag in _TITLES or (tag == "p" and "admonition-title" in (dict(attrs).get("class") or ""))
        if title:
            self.in_title += 1
            self.title_tags.append(tag)
            return
        if tag in _BLOCKS:
            block = {"text": "", "links": [], "tested": []}
            self.open.append(block)
            self.blocks.append(block)
        href = dict(attrs).get("href") or ""
        if tag == "a" and href.startswith("http"):
            for block in self.open:
                block["links"].append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("pre", "script", "style") and self.in_code:
            self.in_code -= 1
        if self.title_tags and tag == self.title_tags[-1]:
            self.title_tags.pop()
            self.in_title -= 1
            return
        if tag in _BLOCKS and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if not self.in_code and not self.in_title:
            for block in self.open:
                block["text"] += data

    def handle_comment(self, data: str) -> None:
        for block in self.open or self.blocks[-1:]:
            block["tested"] += TESTED_MARKER.findall(data)


def _defines_test(file: str, test: str) -> bool:
    path = REPO_ROOT / file
    return path.is_file() and re.search(rf"^def {test}\(", path.read_text(encoding="utf-8"), re.M) is not None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_claim_about_another_system_is_tested_or_linked(built_site: Path, page: Path) -> None:
    """A block that names PyTorch, JAX or TensorFlow links to that system's documentation or
    source, or carries `<!-- tested: tests/<file>.py::<test> -->` naming the test that runs it."""
    url = page.relative_to(DOCS).with_suffix("").as_posix()
    html = (built_site / ("" if url == "index" else url) / "index.html").read_text(encoding="utf-8")
    article = html[html.find('<article class="md-content__inner') :]
    parser = _Blocks()
    parser.feed(article[: article.find("</article>")])
    unsupported, missing = [], []
    for block in parser.blocks:
        if not OTHER_SYSTEMS.search(block["text"]):
            continue
        for file, test in block["tested"]:
            if not _defines_test(file, test):
                missing.append(f"{file}::{test}")
        if not block["links"] and not block["tested"]:
            unsupported.append(" ".join(block["text"].split())[:140])
    assert not missing, f"{url}: markers name tests that do not exist: {missing}"
    assert not unsupported, f"{url}: claims about other systems with no test or link: {unsupported}"
