"""The examples in ad_core's docstrings run, and print what the docstrings say they print.

The doctest runs over the modules listed in `MODULES_WITH_EXAMPLES`, and each of them must
still hold an example (a module that lost its examples would otherwise pass with nothing run).
Every module of the package is searched for examples, so one added to an unlisted module fails
until the module is listed here.
"""

import doctest
import importlib
import pkgutil

import pytest

import ad_core

MODULES_WITH_EXAMPLES = [
    "ad_core",
    "ad_core.misc.flatten",
    "ad_core.misc.optimizers",
    "ad_core.misc.tracers",
    "ad_core.scipy.stats",
    "ad_core.wrap_util",
]


def _examples_in(module_name: str) -> int:
    module = importlib.import_module(module_name)
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(module))


@pytest.mark.parametrize("module_name", MODULES_WITH_EXAMPLES)
def test_docstring_examples_run(module_name: str) -> None:
    module = importlib.import_module(module_name)
    failures, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0, f"{module_name} is listed but has no docstring example left"
    assert failures == 0


def test_every_module_with_examples_is_listed() -> None:
    every_module = ["ad_core", *(info.name for info in pkgutil.walk_packages(ad_core.__path__, "ad_core."))]
    with_examples = {name for name in every_module if _examples_in(name) > 0}
    assert with_examples == set(MODULES_WITH_EXAMPLES)
