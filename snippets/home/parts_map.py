"""The map of the book on the home page: every planned page that exists, with its own title."""

import re

from bookkit import md_table
from bookkit.snippet_modules import REPO_ROOT

PLAN = [
    ("Part I · The engine", "part1/overview.md", "what automatic differentiation does; how to read the book"),
    ("Part I · The engine", "part1/linear-maps.md", "Jacobians, JVPs and VJPs"),
    ("Part I · The engine", "part1/tracing.md", "how boxes record a computation graph"),
    ("Part I · The engine", "part1/backward-pass.md", "walking the graph in reverse"),
    ("Part I · The engine", "part1/fan-out.md", "why gradients are added up"),
    ("Part I · The engine", "part1/vjp-rules.md", "the rule each primitive supplies"),
    ("Part I · The engine", "part1/broadcasting-in-reverse.md", "what `unbroadcast` sums"),
    ("Part I · The engine", "part1/forward-mode.md", "tangents pushed forward"),
    ("Part I · The engine", "part1/higher-order.md", "differentiating a derivative"),
    ("Part I · The engine", "part1/checking-gradients.md", "finite differences as the oracle"),
    ("Part I · The engine", "part1/extending.md", "new primitives with their rules"),
    ("Part II · Jacobians of array operations", "part2/broadcasting-jacobian.md", "broadcasting as a matrix"),
    (
        "Part II · Jacobians of array operations",
        "part2/copies-and-gathers.md",
        "copies, indexing and their adjoints",
    ),
    ("Part II · Jacobians of array operations", "part2/matmul.md", "the two VJPs of `dot`"),
    (
        "Part II · Jacobians of array operations",
        "part2/softmax.md",
        "softmax's Jacobians and cross-entropy's options",
    ),
    ("Part II · Jacobians of array operations", "part2/attention.md", "the gradients of Q, K and V"),
    (
        "Part II · Jacobians of array operations",
        "part2/convolution.md",
        "transposed convolution, im2col, pooling",
    ),
    ("Part III · A network by hand", "part3/loss-output-tanh.md", "cross-entropy, the output layer and tanh"),
    (
        "Part III · A network by hand",
        "part3/batchnorm-embedding.md",
        "BatchNorm, the input layer and the embedding",
    ),
    (
        "Part III · A network by hand",
        "part3/normalization.md",
        "LayerNorm, RMSNorm and BatchNorm at inference",
    ),
    ("Reference", "reference/api.md", "the public API, from the docstrings"),
    ("Reference", "reference/package-map.md", "every module of `ad_core`, and the order they import"),
    ("Reference", "reference/glossary.md", "every term, in English and Chinese"),
]


def page_title(path):
    """The page's first level-1 heading: the title a reader sees at the top of the page."""
    text = (REPO_ROOT / "docs" / path).read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, flags=re.MULTILINE)
    assert heading, f"docs/{path} has no level-1 heading"
    return heading.group(1).strip()


present = [(part, path, about) for part, path, about in PLAN if (REPO_ROOT / "docs" / path).is_file()]
assert len({path for _, path, _ in PLAN}) == len(PLAN), "a page is listed twice"
# Every page of the book is on the map: a new page that the plan does not name fails here.
pages = {page.relative_to(REPO_ROOT / "docs").as_posix() for page in (REPO_ROOT / "docs").rglob("*.md")}
unplanned = sorted(pages - {path for _, path, _ in PLAN} - {"index.md"})
assert not unplanned, f"pages missing from the map of the book: {unplanned}"

if not present:
    print("The chapters are being written; none has been published yet.")
parts = list(dict.fromkeys(part for part, _, _ in present))
for part in parts:
    rows = [[f"[{page_title(path)}]({path})", about] for row_part, path, about in present if row_part == part]
    print(f"### {part}\n")
    print(md_table(["page", "what it covers"], rows))
