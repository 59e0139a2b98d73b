"""`import ad_core.numpy as anp`: NumPy's namespace, traced.

Every NumPy callable is here. Those with rules (see `vjps.py` and `jvps.py`) can be
differentiated in both modes; the others compute their values and raise a clear error
only when a derivative has to flow through them.
"""

from . import array_box, jvps, random, vjps, wrapper

globals().update({name: getattr(wrapper, name) for name in wrapper.__all__})

__all__ = [*wrapper.__all__, "random"]
del array_box, jvps, vjps
