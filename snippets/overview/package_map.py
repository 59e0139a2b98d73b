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
modules, folders = ["ad_core"], [(package_dir, "ad_core.")]
while folders:  # iter_modules lists a folder's modules without importing them
    folder, prefix = folders.pop()
    for info in pkgutil.iter_modules([str(folder)], prefix):
        modules.append(info.name)
        if info.ispkg:
            folders.append((folder / info.name.rpartition(".")[2], f"{info.name}."))
modules[1:] = sorted(modules[1:])
# --8<-- [end:walk]
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


def source_path(name: str) -> Path:
    """The file that defines module `name`, found without importing it."""
    relative = package_dir.joinpath(*name.split(".")[1:])
    return relative / "__init__.py" if relative.is_dir() else relative.with_suffix(".py")


def exported_names(name: str, tree: ast.Module) -> list[str]:
    """`__all__`: read from the source when it is a literal list, else from the imported module
    (only for modules whose names are computed, none of which needs an optional dependency)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            try:
                return list(ast.literal_eval(node.value))
            except ValueError:
                return list(importlib.import_module(name).__all__)
    return []


rows = []
total_lines = 0
for name in modules:
    path = source_path(name)
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree)
    assert docstring, f"{name} has no module docstring"
    lines = len(source.splitlines())
    total_lines += lines
    names = public_definitions(tree) or [f"re-exports {len(exported_names(name, tree))} names"]
    if names == ["re-exports 0 names"]:
        names = []
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
