"""How much checking this book does: snippet files per chapter, the assertions in them, and the
pages that include them, counted from the files at build time."""

import ast
import re
from pathlib import Path

from bookkit import md_table

here = globals().get("__file__")
repo = Path(here).resolve().parents[2] if here else Path.cwd()
docs = repo / "docs"

# Every include line of every page, e.g. --8<-- "snippets/tracing/control_flow.py:branchy".
include = re.compile(r'--8<--\s+"(snippets/[^":]+\.py)(?::[\w-]+)?"')
included_by: dict[str, set[str]] = {}
for page in sorted(docs.rglob("*.md")):
    for match in include.finditer(page.read_text(encoding="utf-8")):
        included_by.setdefault(match.group(1), set()).add(page.relative_to(docs).as_posix())


def count_asserts(path: Path) -> int:
    """`assert` statements plus calls of the book's checking helpers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            count += 1
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in ("assert_shape_then_close", "render", "check"):
                count += 1
    return count


rows = []
totals = [0, 0, 0]
for folder in sorted(p for p in (repo / "snippets").iterdir() if p.is_dir()):
    files = sorted(f for f in folder.glob("*.py") if not f.name.startswith("_"))
    if not files:
        continue
    relative = [f.relative_to(repo).as_posix() for f in files]
    asserts = sum(count_asserts(f) for f in files)
    shown = sum(1 for r in relative if r in included_by)
    pages = sorted({page for r in relative for page in included_by.get(r, ())})
    rows.append(
        [
            f"`{folder.name}`",
            str(len(files)),
            str(asserts),
            f"{shown} of {len(files)}",
            ", ".join(f"`{p}`" for p in pages) or "—",
        ]
    )
    totals = [totals[0] + len(files), totals[1] + asserts, totals[2] + shown]

overview_files = [
    f"snippets/overview/{f.name}"
    for f in (repo / "snippets" / "overview").glob("*.py")
    if not f.name.startswith("_")
]
assert all(f in included_by for f in overview_files), "every snippet of this chapter is shown"
print(
    md_table(
        ["snippet folder", "files", "checks in them", "files included by a page", "pages"],
        rows,
        align=["left", "right", "right", "right", "left"],
    )
)
print()
print(
    f"In all: {totals[0]} snippet files holding {totals[1]} checks (`assert` statements and "
    f"calls of the checking helpers, counted in the source); {totals[2]} of the files are "
    "included by a page. A check inside a loop runs once per pass, so the build runs more "
    "checks than this static count."
)
