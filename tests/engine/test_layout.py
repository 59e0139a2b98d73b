"""The engine's tests mirror its modules: each module of `ad_core` has its test file, named like
it (`ad_core/tracer.py` ↔ `tests/engine/test_tracer.py`), and no test name is used twice in the
suite (a repeated name makes `pytest -k` and failure reports ambiguous)."""

from __future__ import annotations

import ast
import pkgutil
from collections import Counter
from pathlib import Path

import ad_core

ENGINE_TESTS = Path(__file__).resolve().parent
SUITE = ENGINE_TESTS.parent

# Modules whose tests are not in `test_<module>.py`, and why.
TESTED_ELSEWHERE = {
    # `ad_core.misc` is small: one file for flatten, the optimizers and the tracers.
    "ad_core.misc.flatten": ("test_misc.py",),
    "ad_core.misc.optimizers": ("test_misc.py",),
    "ad_core.misc.tracers": ("test_misc.py",),
    # The NumPy rules are tested by rule family, across the three modules that define them.
    **{
        module: (
            "test_rules_unary.py",
            "test_rules_binary_broadcasting.py",
            "test_reductions.py",
            "test_shape_ops.py",
            "test_indexing.py",
            "test_linear_algebra.py",
            "test_complex.py",
        )
        for module in ("ad_core.numpy.wrapper", "ad_core.numpy.vjps", "ad_core.numpy.jvps")
    },
}


def _modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.walk_packages(ad_core.__path__, "ad_core.")
        if not info.ispkg
    )


def _expected_test_files(module: str) -> tuple[str, ...]:
    if module in TESTED_ELSEWHERE:
        return TESTED_ELSEWHERE[module]
    parts = module.split(".")[1:]
    if parts[0] == "numpy":
        parts = parts[1:]
    if parts[:2] == ["scipy", "stats"]:  # one file for the distributions of scipy.stats
        parts = parts[:2]
    return ("test_" + "_".join(parts) + ".py",)


def test_every_engine_module_has_its_test_file() -> None:
    missing = {
        module: [name for name in _expected_test_files(module) if not (ENGINE_TESTS / name).is_file()]
        for module in _modules()
    }
    assert {module: names for module, names in missing.items() if names} == {}


def test_every_listed_exception_is_a_module() -> None:
    assert set(TESTED_ELSEWHERE) <= set(_modules()), "remove the entries of modules that are gone"


def test_no_test_name_is_used_twice() -> None:
    names = Counter()
    for path in SUITE.rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names.update(
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
        )
    assert [name for name, count in names.items() if count > 1] == []
