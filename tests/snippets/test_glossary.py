"""The glossary page: every term has its anchor and Chinese name, and every link to it resolves."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from bookkit import load_snippet_module
from bookkit.testing import page_text

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
    "source map", "holomorphic function", "tie (in max/min)", "oracle (reference implementation)",
    "property-based test", "higher-order derivative", "shape alignment rule", "expand vs repeat",
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
