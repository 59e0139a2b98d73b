"""`ad_core.numpy.random`: NumPy's random module, wrapped; random draws are constants."""

from numpy import random as _random

from ..tracer import notrace_primitive


def _wrap_random_namespace() -> dict:
    wrapped = {}
    for name, obj in vars(_random).items():
        if name.startswith("_"):
            continue
        wrapped[name] = notrace_primitive(obj) if callable(obj) and not isinstance(obj, type) else obj
    return wrapped


globals().update(_wrap_random_namespace())
