"""What `ad_core.staging` replaces in the engine for one staging call, found by looking: every
name in the engine's modules and every attribute of its classes, before and during a staging
trace. The page's list is printed from that difference, so it cannot go stale."""

import sys

import numpy as np

import ad_core.numpy as anp
from ad_core import stage, staging
from ad_core.tracer import trace_stack


def engine_state() -> dict:
    """(namespace, name) -> object, for the modules of the engine (every loaded `ad_core` module
    but `ad_core.staging`, whose own state is not the engine), their `wrapped` tables, and the
    attributes of the classes they define."""
    found = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or module_name == "ad_core.staging" or not (
                module_name == "ad_core" or module_name.startswith("ad_core.")):
            continue
        for space, namespace in ((module_name, vars(module)),
                                 (f"{module_name}.wrapped", getattr(module, "wrapped", None))):
            if not isinstance(namespace, dict):
                continue
            for name, value in list(namespace.items()):
                found[(space, name)] = value
                if isinstance(value, type) and value.__module__.startswith("ad_core."):
                    for attribute, member in list(vars(value).items()):
                        found[(value.__name__, attribute)] = member
    return found


def kind(value) -> str:
    code = getattr(value, "__code__", None)
    return {staging._PRIMITIVE_CODE: "primitive", staging._NOTRACE_CODE: "notrace"}.get(code, "other")


before = engine_state()
with trace_stack.new_trace() as level, staging._watching(staging._Recorder("probe", level)):
    during = engine_state()
after = engine_state()
replaced = [key for key in before if during[key] is not before[key]]
assert set(during) == set(before) == set(after)
assert all(after[key] is before[key] for key in before)  # everything is put back
named = sorted({f"{space.rsplit('.', 1)[-1]}.{name}" for (space, name) in replaced
                if kind(before[(space, name)]) == "other"})
wrapper_kinds = {kind(before[key]) for key in replaced} - {"other"}
assert wrapper_kinds == {"primitive", "notrace"}
# Every wrapper in those namespaces is replaced: the staged versions see every call.
assert all(during[key] is not value for key, value in before.items() if kind(value) != "other")
# A staging call installs the same replacements and removes them (the engine is as before).
stage(lambda x: anp.sum(anp.floor(x) * x))(np.ones(2))
assert all(engine_state()[key] is value for key, value in before.items())

print("For the one staging call only, `ad_core.staging` replaces "
      + ", ".join(f"`{name}`" for name in named)
      + ", and every wrapper that `primitive` (a function with a rule) or `notrace_primitive` "
        "(one without) made in the package's loaded modules, by versions that record or refuse; "
        "when the trace ends it puts the originals back. (This list is what differs in the "
        "engine's modules and classes during a staging trace, read at build time.)")
