"""`import ad_core.numpy as anp`: NumPy's namespace, traced.

Every NumPy callable is here. Those with rules (see `vjps.py` and `jvps.py`) can be
differentiated in both modes; the others compute their values and raise a clear error
only when a derivative has to flow through them. `anp.linalg`, `anp.fft` and `anp.random` are
traced versions of NumPy's submodules (`linalg` and `fft` list their rules in their docstrings).
"""

import importlib

from . import array_box, jvps, vjps, wrapper

globals().update({name: getattr(wrapper, name) for name in wrapper.__all__})
__version__ = wrapper.numpy_version  # NumPy's, as `autograd.numpy.__version__` is

# NumPy's own `linalg`, `fft` and `random` came in with the namespace; replace them with the traced
# submodules (imported by path, since `from . import linalg` would find NumPy's attribute).
linalg = importlib.import_module(f"{__name__}.linalg")
random = importlib.import_module(f"{__name__}.random")
fft = importlib.import_module(f"{__name__}.fft")

__all__ = [*wrapper.__all__, "fft", "linalg", "random"]
del array_box, importlib, jvps, vjps
