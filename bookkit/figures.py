"""Matplotlib figures as inline SVG that is byte-identical from one build to the next."""

from __future__ import annotations

import io
import re
from typing import Any

from .claims import Rendered

# Matplotlib draws its ink (text, axes, ticks) black on white. In the page both become CSS
# variables (`book.css` sets them for the light and the dark scheme), so a plot is drawn in
# the reader's scheme instead of sitting on a white panel; the fallbacks keep the SVG valid
# on its own. Data colours stay as the snippet chose them.
_INK = "var(--bk-plot-ink, #000000)"
_PAPER = "var(--bk-plot-paper, #ffffff)"

# A fixed salt makes the ids matplotlib writes into the SVG (clip paths, glyphs) repeatable.
_SVG_SALT = "autodiff-from-the-inside"


def svg_figure(fig: Any, alt: str | None = None, close: bool = True) -> str:
    """The figure as an inline `<figure class="bk-figure">` holding deterministic SVG (no date,
    no tool version, fixed ids; text drawn as paths so no font is needed), then closes it.
    Black and white become the page's ink and paper, so the plot follows the color scheme.

    `alt` becomes the SVG's accessible label.
    """
    # Imported here: pyplot costs a third of a second, and most snippets draw nothing.
    import matplotlib
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": _SVG_SALT, "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    if close:
        plt.close(fig)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML declaration and DOCTYPE
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.DOTALL)
    svg = "\n".join(line for line in svg.splitlines() if line.strip())
    svg = re.sub(r"#000000\b", _INK, svg, flags=re.IGNORECASE)
    svg = re.sub(r"#ffffff\b", _PAPER, svg, flags=re.IGNORECASE)
    if alt:
        safe = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        svg = svg.replace("<svg ", f'<svg role="img" aria-label="{safe}" ', 1)
    return Rendered(f'<figure class="bk-figure" markdown="0">\n{svg}\n</figure>\n')
