"""The examples in ad_core's docstrings run, and print what the docstrings say they print."""

import doctest
import importlib
import pkgutil

import pytest

import ad_core

MODULES = sorted(["ad_core", *(info.name for info in pkgutil.walk_packages(ad_core.__path__, "ad_core."))])


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name):
    module = importlib.import_module(module_name)
    failures, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0


def test_the_package_docstring_has_an_example():
    finder = doctest.DocTestFinder()
    examples = [example for test in finder.find(ad_core) for example in test.examples]
    assert examples, "the package docstring lost its example"
