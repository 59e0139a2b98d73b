"""`import ad_core.numpy as anp`: NumPy's namespace, traced.

Every NumPy callable is here. Those with rules (see `vjps.py` and `jvps.py`) can be
differentiated in both modes; the others compute their values and raise a clear error
only when a derivative has to flow through them. `anp.linalg` and `anp.random` are traced
versions of NumPy's submodules.
"""

import importlib

from . import array_box, jvps, vjps, wrapper

globals().update({name: getattr(wrapper, name) for name in wrapper.__all__})

# NumPy's own `linalg` and `random` came in with the namespace; replace them with the traced
# submodules (imported by path, since `from . import linalg` would find NumPy's attribute).
linalg = importlib.import_module(f"{__name__}.linalg")
random = importlib.import_module(f"{__name__}.random")

__all__ = [*wrapper.__all__, "linalg", "random"]
del array_box, importlib, jvps, vjps
