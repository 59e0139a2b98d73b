"""`ad_core.scipy`: SciPy functions with derivative rules, as in `autograd.scipy`
(`from ad_core.scipy.special import logsumexp` where the code said
`from autograd.scipy.special import logsumexp`).

Needs SciPy (`pip install 'ad-core[scipy]'`); the rest of ad_core does not. Each submodule is
imported when it is first used, so `import ad_core.scipy` alone costs nothing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

SUBMODULES = ("integrate", "linalg", "signal", "special", "stats")
__all__ = list(SUBMODULES)


def __getattr__(name: str) -> ModuleType:
    if name in SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
