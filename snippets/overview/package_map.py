"""The map of `ad_core`, drawn from the live package: every module, its docstring's first line,
its size and what it defines publicly."""

import ast
import importlib
import pkgutil
from pathlib import Path

import ad_core
from bookkit import md_table

# --8<-- [start:walk]
package_dir = Path(ad_core.__file__).parent
submodules = pkgutil.walk_packages([str(package_dir)], prefix="ad_core.")
modules = ["ad_core", *sorted(info.name for info in submodules)]
# --8<-- [end:walk]


def public_definitions(tree: ast.Module) -> list[str]:
    """Top-level functions and classes whose names do not start with an underscore."""
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
    ]


def first_sentence(docstring: str) -> str:
    """The docstring's first paragraph, up to its first full stop."""
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    head, dot, _ = paragraph.partition(". ")
    return head + "." if dot else paragraph


rows = []
total_lines = 0
for name in modules:
    module = importlib.import_module(name)
    path = Path(module.__file__)
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree)
    assert docstring, f"{name} has no module docstring"
    lines = len(source.splitlines())
    total_lines += lines
    names = public_definitions(tree)
    exported = getattr(module, "__all__", None)
    if not names and exported:
        names = [f"re-exports {len(exported)} names"]
    for definition in names:
        assert definition.startswith("re-exports") or hasattr(module, definition)
    shown = ", ".join(f"`{n}`" if not n.startswith("re-exports") else n for n in names[:5])
    if len(names) > 5:
        shown += f" and {len(names) - 5} more"
    rows.append(
        [
            f"`{path.relative_to(package_dir).as_posix()}`",
            first_sentence(docstring),
            str(lines),
            shown or "—",
        ]
    )

print(
    md_table(
        ["file in `ad_core/`", "what its docstring says first", "lines", "public definitions"],
        rows,
        align=["left", "left", "right", "left"],
    )
)
print()
print(f"{len(modules)} modules, {total_lines:,} lines in all, comments and docstrings included.")
