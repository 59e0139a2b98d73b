"""A pytest plugin: `import autograd...` imports `ad_core...`, and every test's outcome is recorded.

Loaded with `-p shim` by `run.py`. With `AUTOGRAD_SUITE_ENGINE=ad_core` it puts a finder in
front of `sys.meta_path` that answers every `autograd` or `autograd.<sub>` import with the module
`ad_core` or `ad_core.<sub>` (the same module object, so `autograd.numpy is ad_core.numpy`). That
rename is the whole shim: no name is added, patched or skipped here. With
`AUTOGRAD_SUITE_ENGINE=autograd` it does nothing to imports, so the same tests run on autograd.
Either way the outcome of every test (passed, failed, skipped) is written as JSON to
`AUTOGRAD_SUITE_RESULTS`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import os
import sys


class _Rename(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `autograd[.x]` as `ad_core[.x]`; a module ad_core lacks is not found."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "autograd" and not fullname.startswith("autograd."):
            return None
        target_name = "ad_core" + fullname[len("autograd"):]
        if importlib.util.find_spec(target_name) is None:
            return None  # the normal "No module named autograd.x" follows
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module("ad_core" + spec.name[len("autograd"):])

    def exec_module(self, module):
        pass  # already executed as ad_core's module


ENGINE = os.environ.get("AUTOGRAD_SUITE_ENGINE", "ad_core")
if ENGINE == "ad_core":
    sys.meta_path.insert(0, _Rename())

_outcomes: dict[str, str] = {}


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    if report.when == "call" or report.outcome != "passed":
        # a failure in setup or teardown counts as the test's failure; a skip at setup is a skip
        previous = _outcomes.get(nodeid)
        if previous != "failed":
            _outcomes[nodeid] = report.outcome


def pytest_collectreport(report):
    if report.failed:  # a test file that cannot even be imported fails as a whole
        _outcomes[report.nodeid] = "failed"


def pytest_sessionfinish(session):
    path = os.environ.get("AUTOGRAD_SUITE_RESULTS")
    if path:
        with open(path, "w") as f:
            json.dump({"engine": ENGINE, "outcomes": _outcomes}, f, indent=0, sort_keys=True)
