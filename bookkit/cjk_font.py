"""The Chinese glyphs of the site, served by the site itself (`bookkit/hooks.py`, after a build).

The glossary names each term in Chinese, and a reader's machine may have no CJK font: the
characters would show as empty boxes. After every build, the characters the built pages use
are collected, and Noto Sans SC (SIL Open Font License, npm `@fontsource/noto-sans-sc`,
installed by `make` like KaTeX and Mermaid) is cut down with fontTools to exactly those
glyphs: one small WOFF file plus the `@font-face` rule that `book.css` names. The rule's
`unicode-range` lists the characters, so a page without Chinese never downloads the font.
"""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path

FAMILY = "Book Noto Sans SC"
PACKAGE = Path("node_modules/@fontsource/noto-sans-sc")
SOURCE = PACKAGE / "files/noto-sans-sc-chinese-simplified-400-normal.woff"
FONT_DIR = "assets/fonts"  # inside the built site
CSS_NAME = "book-cjk.css"
# CJK radicals, symbols and punctuation, ideographs (extension A and the unified block),
# compatibility ideographs, and full-width forms.
CJK = re.compile("[\u2e80-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


class MissingGlyphs(RuntimeError):
    """The font has no glyph for some character a page uses."""


def characters_in(site_dir: Path) -> set[str]:
    """Every CJK character in the built HTML pages (search results quote the same text)."""
    found: set[str] = set()
    for page in site_dir.rglob("*.html"):
        found.update(CJK.findall(page.read_text(encoding="utf-8")))
    return found


def _subset(source: Path, mtime_ns: int, characters: str) -> bytes:
    """The subset, remembered for the rebuilds of one `mkdocs serve` (in exec_cache, which
    survives them), keyed by the font file, the characters and this module's own source."""
    from bookkit import exec_cache

    key = ("cjk_font", str(source), mtime_ns, characters, Path(__file__).read_bytes())
    if key not in exec_cache.memo:
        if len(exec_cache.memo) > 8:
            exec_cache.memo.clear()
        exec_cache.memo[key] = _make_subset(source, characters)
    return exec_cache.memo[key]


def _make_subset(source: Path, characters: str) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(source), recalcTimestamp=False)
    cmap = font.getBestCmap()
    missing = [c for c in characters if ord(c) not in cmap]
    if missing:
        raise MissingGlyphs(f"{source.name} has no glyph for {''.join(missing)!r}")
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # keep the copyright and license names of the original
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in characters])
    subsetter.subset(font)
    buffer = io.BytesIO()
    font.flavor = "woff"
    font.save(buffer, reorderTables=True)
    return buffer.getvalue()


def _unicode_range(characters: str) -> str:
    return ",".join(f"U+{ord(c):04X}" for c in characters)


def write_font(site_dir: Path, project_dir: Path) -> tuple[int, int]:
    """Write the subset font and its CSS into the site; return (characters, bytes of font)."""
    characters = "".join(sorted(characters_in(site_dir)))
    out = site_dir / FONT_DIR
    out.mkdir(parents=True, exist_ok=True)
    rules = [f"/* The CJK glyphs this site uses, from Noto Sans SC (SIL OFL 1.1); see {__name__}. */"]
    size = 0
    if characters:
        source = project_dir / SOURCE
        if not source.is_file():
            raise FileNotFoundError(f"{source} not found: run `make` (npm ci) to install {PACKAGE.name}")
        data = _subset(source, source.stat().st_mtime_ns, characters)
        name = f"noto-sans-sc-{hashlib.sha256(data).hexdigest()[:12]}.woff"
        for stale in out.glob("noto-sans-sc-*.woff"):
            if stale.name != name:
                stale.unlink()
        (out / name).write_bytes(data)
        size = len(data)
        rules.append(
            "@font-face {\n"
            f'  font-family: "{FAMILY}";\n'
            "  font-style: normal;\n"
            "  font-weight: 400;\n"
            "  font-display: swap;\n"
            f'  src: url("{name}") format("woff");\n'
            f"  unicode-range: {_unicode_range(characters)};\n"
            "}"
        )
    (out / CSS_NAME).write_text("\n".join(rules) + "\n", encoding="utf-8")
    return len(characters), size
