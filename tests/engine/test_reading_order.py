"""The engine reads top-down: a private helper is defined above the first function that uses it.

The exceptions: a public function and the private function that implements it (`jacobian`
above `_jacobian`: the reader meets the name they call first), and two functions that call each
other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ad_core

PACKAGE = Path(ad_core.__file__).parent


def helpers_used_before_defined(source: str) -> list[tuple[str, str]]:
    """(user, helper) for each top-level statement (a function, a class, a registration) that
    uses a private module-level helper defined further down the file."""
    tree = ast.parse(source)
    defined_at: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined_at.setdefault(node.name, node.lineno)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    defined_at.setdefault(target.id, node.lineno)
    uses = {getattr(node, "name", None): {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}
            for node in tree.body}
    found = []
    for node in tree.body:
        # Registrations at module level (`defvjp(f, lambda ans, x: lambda g: _helper(g))`) read
        # the helper only when the rule runs, so Python allows it below; a reader does not.
        name = getattr(node, "name", f"line {node.lineno}")
        local = {arg.arg for inner in ast.walk(node)
                 if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                 for arg in [*inner.args.args, *inner.args.kwonlyargs]}
        used = {name.id for name in ast.walk(node)
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load)}
        for helper in sorted(used - local):
            if (helper.startswith("_") and not helper.startswith("__")
                    and defined_at.get(helper, 0) > node.lineno
                    and helper != "_" + name.lstrip("_")
                    and name not in uses.get(helper, ())):  # mutual recursion has no order
                found.append((name, helper))
    return found


def test_private_helpers_are_defined_above_their_first_use() -> None:
    late = {
        path.relative_to(PACKAGE.parent).as_posix(): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if (found := helpers_used_before_defined(path.read_text()))
    }
    assert late == {}


def test_the_check_finds_a_helper_defined_below() -> None:
    source = "def rule(x):\n    return _helper(x)\n\n\ndef _helper(x):\n    return x\n"
    assert helpers_used_before_defined(source) == [("rule", "_helper")]
    assert helpers_used_before_defined("def jacobian(f):\n    return _jacobian(f)\n\n\n"
                                       "def _jacobian(f):\n    return f\n") == []
