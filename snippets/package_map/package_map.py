"""The map of `ad_core`, drawn from the live package: every module, its docstring's first line,
its size and what it defines publicly."""

import ast
import importlib
import pkgutil
import re
import sys
from pathlib import Path

import ad_core
from bookkit import checked, md_table, text
from bookkit.source import breakable_code

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
    sentence = head + "." if dot else paragraph
    # "Layer 2, the core: ..." -> "The core: ...": the layers are computed below from the imports
    # (differential_operators.py calls itself layer 3; its imports put it in layer 4).
    layered = re.match(r"Layer \d+, (.)(.*)", sentence, re.DOTALL)
    return layered.group(1).upper() + layered.group(2) if layered else sentence


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


def string_constants(name: str, tree: ast.Module) -> int:
    """Another count of `__all__`: the string constants inside its assignment, or, when
    `__all__` is computed, the listed names the module really has: bound in its namespace, or a
    submodule file of the package (read without importing it, so SciPy is never loaded). A
    listed name the module does not define is not counted."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            strings = [
                n for n in ast.walk(node.value) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
            if isinstance(node.value, ast.List) and all(isinstance(e, ast.Constant) for e in node.value.elts):
                return len(strings)
            module = importlib.import_module(name)
            files = {info.name for info in pkgutil.iter_modules(getattr(module, "__path__", []))}
            return sum(1 for listed in set(module.__all__) if listed in vars(module) or listed in files)
    return 0


already_loaded = "scipy" in sys.modules
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
    definitions = public_definitions(tree)
    if definitions:
        listed = ", ".join(f"`{n}`" for n in definitions[:5])
        if len(definitions) > 5:
            more = checked(len(definitions) - 5, against=len(definitions[5:]))
            listed = text("{listed} and {more} more", listed=listed, more=more)
    else:
        exported = exported_names(name, tree)
        listed = (
            text(
                "re-exports {count} names",
                count=checked(len(set(exported)), against=string_constants(name, tree)),
            )
            if exported
            else None
        )
    rows.append(
        [
            # may break after a `/` (scipy/stats/multivariate_normal.py is the widest word)
            breakable_code(path.relative_to(package_dir).as_posix()),
            first_sentence(docstring),
            # Another count of the lines: the newline characters, plus an unterminated last line.
            checked(lines, against=source.count("\n") + (not source.endswith("\n")), shown_as=str),
            listed,
        ]
    )

# Reading the map never loads SciPy (ad_core.scipy imports its submodules lazily).
assert already_loaded or "scipy" not in sys.modules, "the package map must not need SciPy"
print(
    md_table(
        ["file", "its docstring, first sentence", "lines", "public names"],
        rows,
        align=["left", "left", "right", "left"],
    )
)
print()
files = sorted(package_dir.rglob("*.py"))
print(
    text(
        "{modules} modules, {total:,} lines in all, comments and docstrings included.",
        modules=checked(len(modules), against=len(files)),
        total=checked(total_lines, against=sum(f.read_bytes().count(b"\n") for f in files)),
    )
)
