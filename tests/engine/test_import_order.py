"""Imports inside `ad_core` run one way: each module imports only modules listed above it in
`ad_core.LAYERS`, at the top of the file, and the package docstring and CONTRIBUTING.md state
the same order.

The test reads every module's syntax tree, so it needs no import to succeed and names the file
and line of each violation.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import ad_core

PACKAGE = Path(ad_core.__file__).parent
# `scipy` is an optional dependency: `ad_core.scipy` imports its submodules when first used.
OPTIONAL_LAZY_IMPORTS = {"ad_core/scipy/__init__.py"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> list[tuple[str, int, bool]]:
    """(module imported, line, outside any function) for every import of an `ad_core` module."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    in_functions = {id(inner) for node in ast.walk(tree)
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                    for inner in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                if node.module:
                    targets = [".".join([*base, node.module])]
                else:  # `from . import numpy`: each name is a module of the package
                    targets = [".".join([*base, alias.name]) for alias in node.names]
            else:
                targets = [node.module or ""]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module"):
            targets = ["<import_module>"]
        found += [(target, node.lineno, id(node) not in in_functions) for target in targets
                  if target.startswith("ad_core") or target == "<import_module>"]
    return found


def rank(order: list[str], module: str) -> int:
    """The position of `module`, or of the listed package it belongs to."""
    while module not in order and "." in module:
        module = module.rsplit(".", 1)[0]
    return order.index(module) if module in order else -1


def violations(order: list[str]) -> list[str]:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name, where = module_name(path), path.relative_to(PACKAGE.parent).as_posix()
        own = rank(order, name)
        if own < 0:
            problems.append(f"{where}: {name} is not in ad_core.LAYERS")
            continue
        for target, line, at_top in imported_modules(path):
            if target == "<import_module>":
                if not at_top and where not in OPTIONAL_LAZY_IMPORTS:
                    problems.append(f"{where}:{line}: import_module inside a function")
                continue
            if not at_top:
                problems.append(f"{where}:{line}: imports {target} inside a function")
            theirs = rank(order, target)
            if theirs < 0:
                problems.append(f"{where}:{line}: imports {target}, which is not in ad_core.LAYERS")
            elif theirs >= own and not target.startswith(name + "."):
                problems.append(f"{where}:{line}: {name} imports {target}, listed at or below it")
    return problems


def test_every_import_points_up_the_stated_order() -> None:
    assert violations(ad_core.LAYERS) == []


def test_the_check_fails_on_an_import_that_points_down() -> None:
    """Swap two layers that import each other one way: every such import becomes a violation."""
    swapped = list(ad_core.LAYERS)
    tracer, core = swapped.index("ad_core.tracer"), swapped.index("ad_core.core")
    swapped[tracer], swapped[core] = swapped[core], swapped[tracer]
    problems = violations(swapped)
    assert any(p.startswith("ad_core/core.py:") and "imports ad_core.tracer" in p for p in problems), problems


def test_an_import_inside_a_function_is_found(tmp_path, monkeypatch) -> None:
    module = PACKAGE / "differential_operators.py"
    source = module.read_text() + "\n\ndef _late():\n    from . import core\n    return core\n"
    fake = tmp_path / "ad_core"
    fake.mkdir()
    (fake / "differential_operators.py").write_text(source)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    problems = violations(ad_core.LAYERS)
    assert any("imports ad_core.core inside a function" in p for p in problems), problems


def test_the_docstring_and_contributing_state_the_same_order() -> None:
    top = [name.removeprefix("ad_core.") for name in ad_core.LAYERS
           if name.count(".") == 1]
    contributing = (PACKAGE.parent / "CONTRIBUTING.md").read_text()
    for source, text in (("ad_core docstring", ad_core.__doc__), ("CONTRIBUTING.md", contributing)):
        match = re.search(r"tracer →[^.]*", " ".join(text.split()))
        assert match, f"{source} states no import order"
        stated = [part.strip(" `.") for part in re.split(r"→|,", match.group(0))]
        stated = [part for part in stated if part]
        assert stated == top, f"{source} states {stated}, but ad_core.LAYERS is {top}"
