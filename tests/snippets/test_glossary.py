"""The glossary page: every term has its anchor and Chinese name, every link to it resolves, and
every page an entry points to mentions the term; the entries whose definitions make a checkable
claim are checked against the pages and the engine (and PyTorch 2.13 for `expand`)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from bookkit import load_snippet_module
from bookkit.testing import page_text

DOCS = Path(__file__).resolve().parents[2] / "docs"

REPO_ROOT = Path(__file__).resolve().parents[2]
REQUIRED = [
    "automatic differentiation", "reverse mode", "forward mode", "Jacobian",
    "vector-Jacobian product (VJP)", "Jacobian-vector product (JVP)", "cotangent", "tangent",
    "primal", "adjoint", "broadcasting", "unbroadcast", "keepdims", "computation graph",
    "topological sort", "fan-out", "gradient accumulation", "primitive", "box", "trace", "node",
    "vector space", "Hessian", "finite difference", "cross-entropy", "softmax", "logits",
    "batch normalization", "embedding", "gather", "scatter-add", "einsum", "Kronecker product",
    "all-reduce", "learning rate", "data parallel",
    "reduction", "transpose (of a linear map)", "metadata (of an input)", "contribution",
    "leading axis", "size-1 axis", "shape contract", "state snapshot", "call timeline",
    "source map", "holomorphic function", "tie (in max/min)", "higher-order derivative",
    "shape alignment rule", "expand vs repeat",
    "minibatch", "Bessel's correction", "one-hot", "running statistics", "BatchNorm calibration",
    "context window", "intermediate tensor", "bit-for-bit equality", "label smoothing",
    "cosine similarity", "evaluation trace", "trace level", "seed (the output's first cotangent)",
    "pass (forward or backward)", "VJP closure", "path (in a graph)", "aliasing",
    "in-place update", "piecewise-constant function", "Kahn's algorithm",
]


@pytest.fixture(scope="module")
def glossary():
    with contextlib.redirect_stdout(io.StringIO()):  # the module prints the page's table
        return load_snippet_module("snippets/glossary/terms.py")


def test_required_terms_are_listed(glossary) -> None:
    listed = {term.english for term in glossary.TERMS}
    assert set(REQUIRED) <= listed, set(REQUIRED) - listed


def test_every_term_has_an_anchor_and_its_chinese_name(built_site: Path, glossary) -> None:
    html = (built_site / "reference" / "glossary" / "index.html").read_text(encoding="utf-8")
    text = page_text(built_site, "reference/glossary/")
    for term in glossary.TERMS:
        assert f'id="{glossary.slug(term.english)}"' in html, term.english
        assert term.chinese in text, term.english


def test_every_glossary_link_in_the_book_resolves(glossary) -> None:
    anchors = {glossary.slug(term.english) for term in glossary.TERMS}
    link = re.compile(r"glossary\.md#([a-z0-9-]+)")
    missing = {
        (page.relative_to(REPO_ROOT).as_posix(), anchor)
        for page in (REPO_ROOT / "docs").rglob("*.md")
        for anchor in link.findall(page.read_text(encoding="utf-8"))
        if anchor not in anchors
    }
    assert not missing, sorted(missing)


def test_every_glossary_link_in_the_built_site_resolves(built_site: Path, glossary) -> None:
    """Also covers links that snippets print, which exist only in the built pages."""
    anchors = {glossary.slug(term.english) for term in glossary.TERMS}
    link = re.compile(r'href="[^"]*reference/glossary/#([^"]+)"')
    found = {
        (page.relative_to(built_site).as_posix(), anchor)
        for page in built_site.rglob("*.html")
        for anchor in link.findall(page.read_text(encoding="utf-8"))
    }
    assert found, "no page links to the glossary"
    missing = sorted((page, anchor) for page, anchor in found if anchor not in anchors)
    assert not missing, missing


def _page_url(page: str) -> str:
    return page.removesuffix(".md") + "/"


def _words(text: str) -> str:
    """Lowercase, hyphens as spaces, runs of white space as one: how a mention is searched."""
    return re.sub(r"\s+", " ", text.lower().replace("-", " "))


def _mentions(page_words: str, phrase: str) -> bool:
    # A whole word (or its plural), so that `grad_einsum` in a source-map table does not count
    # as `einsum`.
    pattern = r"(?<![\w])" + re.escape(_words(phrase)) + r"(?:s|es)?(?![\w])"
    return re.search(pattern, page_words) is not None


def test_every_page_an_entry_links_mentions_the_term(built_site: Path, glossary) -> None:
    """The "where it is explained" link goes to a page that uses the term (as the entry spells
    it, or as one of its `mentions`), in its prose or in what its snippets print."""
    texts: dict[str, str] = {}
    unmentioned = []
    for term in glossary.TERMS:
        name = re.sub(r"\s*\([^)]*\)", "", term.english)
        for page in term.chapters:
            if page not in texts:
                texts[page] = _words(page_text(built_site, _page_url(page)))
            if not any(_mentions(texts[page], phrase) for phrase in (name, *term.mentions)):
                unmentioned.append((term.english, page))
    assert not unmentioned, unmentioned


def test_adjoint_entry_covers_both_uses_the_pages_make(glossary) -> None:
    """`adjoint` links from a page about a variable's cotangent and from one about the adjoint
    map F*: the entry names both pages and defines both."""
    (entry,) = [term for term in glossary.TERMS if term.english == "adjoint"]
    linking = {
        page.relative_to(DOCS).as_posix()
        for page in DOCS.rglob("*.md")
        if "glossary.md#adjoint)" in page.read_text(encoding="utf-8")
    }
    assert linking, "no page links the adjoint entry"
    assert linking <= set(entry.chapters), linking - set(entry.chapters)
    assert "cotangent" in entry.definition and "linear map" in entry.definition


def test_kronecker_entry_names_only_jacobians_written_as_kronecker_products(glossary) -> None:
    """The entry says which Jacobians the book writes with a Kronecker product; each such page
    (its Markdown or its snippets) really uses one."""
    (entry,) = [term for term in glossary.TERMS if term.english == "Kronecker product"]
    pages = {"broadcasting": "part2/broadcasting-jacobian.md", "matmul": "part2/matmul.md"}
    named = [topic for topic in pages if topic in entry.definition]
    assert named, entry.definition
    for topic in named:
        page = DOCS / pages[topic]
        snippets = DOCS.parent / "snippets" / page.stem.replace("-", "_")
        sources = [page.read_text(encoding="utf-8")]
        sources += [path.read_text(encoding="utf-8") for path in sorted(snippets.glob("*.py"))]
        assert any(r"\otimes" in source for source in sources), f"{page.name} has no Kronecker form"


def test_bit_for_bit_entry_says_the_equality_depends_on_the_input(glossary) -> None:
    """Part III's hand line and the engine's rule for log are different operations; they agree
    in every bit at one batch size and not at another. So bit equality is a property of the
    input, not a sign of "the same operations in the same order"."""
    assert glossary.hand_and_rule_bits_agree(32)
    assert not glossary.hand_and_rule_bits_agree(30)
    assert not glossary.hand_and_rule_bits_agree(27)
    (entry,) = [term for term in glossary.TERMS if term.english == "bit-for-bit equality"]
    definition = str(entry.definition)
    assert "on the input at hand" in definition
    assert not re.search(r"happens (only )?when both perform the same operations", definition)


def test_expand_and_repeat_as_the_entry_describes_them_in_pytorch() -> None:
    """PyTorch 2.13: `Tensor.expand` is a view with stride 0 on the enlarged axis, `repeat`
    copies; both give the input the same gradient."""
    torch = pytest.importorskip("torch")
    x = torch.arange(3.0, requires_grad=True)
    expanded, repeated = x.expand(4, 3), x.repeat(4, 1)
    assert expanded.stride() == (0, 1) and expanded.data_ptr() == x.data_ptr()
    assert repeated.stride() == (3, 1) and repeated.data_ptr() != x.data_ptr()
    weights = torch.arange(12.0).reshape(4, 3)
    (grad_expand,) = torch.autograd.grad((expanded * weights).sum(), x)
    (grad_repeat,) = torch.autograd.grad((repeated * weights).sum(), x)
    assert torch.equal(grad_expand, grad_repeat)
    assert torch.equal(grad_expand, weights.sum(0))
