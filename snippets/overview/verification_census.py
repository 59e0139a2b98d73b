"""How much checking this book does: snippet files per chapter, the assertions in them, and the
pages that include them, counted from the files at build time."""

import re
from os import listdir as os_listdir
from os import walk as os_walk
from pathlib import Path

from bookkit import checked, load_snippet_module, md_table, text

here = Path(__file__).resolve().parent  # this chapter's snippet folder
repo = here.parents[1]
docs = repo / "docs"

# Every include line of every page, e.g. --8<-- "snippets/tracing/control_flow.py:branchy".
include = re.compile(r'--8<--\s+"(snippets/[^":]+\.py)(?::[\w-]+)?"')
included_by: dict[str, set[str]] = {}
for page in sorted(docs.rglob("*.md")):
    for match in include.finditer(page.read_text(encoding="utf-8")):
        included_by.setdefault(match.group(1), set()).add(page.relative_to(docs).as_posix())


# The two counts of a file's checks (syntax tree, tokens) are in a helper module, which keeps
# them per file content.
census = load_snippet_module(Path(__file__).with_name("_census.py"))
count_asserts, count_asserts_by_tokens = census.count_asserts, census.count_asserts_by_tokens


page_texts = [page.read_text(encoding="utf-8") for page in sorted(docs.rglob("*.md"))]
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
    listed = [name for name in os_listdir(folder) if name.endswith(".py") and not name.startswith("_")]
    n_files = checked(len(files), against=len(listed), shown_as=str)
    rows.append(
        [
            f"`{folder.name}`",
            n_files,
            checked(asserts, against=sum(count_asserts_by_tokens(f) for f in files), shown_as=str),
            text(
                "{shown} of {total}",
                shown=checked(
                    shown, against=sum(1 for r in relative if any(f'"{r}' in t for t in page_texts))
                ),
                total=n_files,
            ),
            ", ".join(f"`{p}`" for p in pages) or "—",
        ]
    )
    totals = [totals[0] + len(files), totals[1] + asserts, totals[2] + shown]

overview_files = [
    f.relative_to(repo).as_posix()
    for f in here.glob("*.py")
    if not f.name.startswith("_")
]
assert all(f in included_by for f in overview_files), "every snippet of this chapter is shown"
print(
    md_table(
        ["snippet folder", "scripts", "checks in them", "scripts included by a page", "pages"],
        rows,
        align=["left", "right", "right", "right", "left"],
    )
)
print()
all_files = [f for f in (repo / "snippets").rglob("*.py") if not f.name.startswith("_")]
# The helper modules the table leaves out: `_` files, each used by name in another snippet file.
helpers, unused = census.helper_modules(repo / "snippets")
assert not unused, unused
helper_folders = sorted({f.parent.name for f in helpers})
only_helpers = [name for name in helper_folders if name not in {row[0].strip("`") for row in rows}]
without_scripts = sorted(  # the folders without a script, found another way
    folder.name for folder in (repo / "snippets").iterdir()
    if folder.is_dir() and any(folder.glob("_*.py"))
    and not [p for p in folder.glob("*.py") if not p.name.startswith("_")]
)
assert only_helpers == without_scripts
walked = [name for folder, _, names in os_walk(repo / "snippets") if "__pycache__" not in folder
          for name in names if name.startswith("_") and name.endswith(".py")]
print(
    text(
        "In all: {files} scripts holding {checks} checks (`assert` statements and calls of "
        "the checking helpers such as `checked`, counted in the source); {shown} of them are "
        "included by a page. A check inside a loop runs once per pass, so the build runs more "
        "checks than this static count.",
        files=checked(totals[0], against=len(all_files)),
        checks=checked(totals[1], against=sum(count_asserts_by_tokens(f) for f in all_files)),
        shown=checked(totals[2], against=len({r for r in included_by if not Path(r).name.startswith("_")})),
    )
    + text(
        " Scripts are the snippet files whose names do not start with `_`. Not counted: "
        "{helpers} helper modules (the `_` files other snippet files use, such as `_census.py`, "
        "which does this counting) in {folders} folders, with {helper_checks} checks; a folder of "
        "helpers only ({names}) has no row.",
        helpers=checked(len(helpers), against=len(walked)),
        folders=checked(len(helper_folders), against=len({Path(f).parent for f in helpers})),
        names=", ".join(f"`{name}`" for name in only_helpers),
        helper_checks=checked(sum(count_asserts(f) for f in helpers),
                              against=sum(count_asserts_by_tokens(f) for f in helpers)),
    )
)
