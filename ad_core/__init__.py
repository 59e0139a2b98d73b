"""ad_core: reverse- and forward-mode automatic differentiation over NumPy.

    >>> import ad_core.numpy as anp
    >>> from ad_core import grad
    >>> print(grad(anp.tanh)(0.0))
    1.0

Each module imports only modules above it in `LAYERS`, so the package reads top-down:
tracer → core → containers → numpy → differential_operators → wrap_util → builtins → extend →
test_util → misc → scipy → recorder.

`tracer` makes boxes, nodes and primitives; `core` the backward and forward passes, rule
registration and vector spaces; `containers` traced lists, tuples and dicts; `numpy` the
wrapped namespace and its rules; `differential_operators` `grad` and friends. The rest build on
those: autograd's helper modules, SciPy's traced functions, and `recorder`, which watches the
engine from outside for the book's tables.
"""

from . import containers, numpy

# autograd's names, importable as `from ad_core import tuple`; re-exported explicitly but kept
# out of __all__, so that `from ad_core import *` does not replace Python's own.
from .builtins import dict as dict
from .builtins import isinstance as isinstance
from .builtins import list as list
from .builtins import tuple as tuple
from .builtins import type as type
from .differential_operators import (
    checkpoint,
    deriv,
    elementwise_grad,
    grad,
    grad_and_aux,
    grad_named,
    hessian,
    hessian_tensor_product,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    multigrad_dict,
    tensor_jacobian_product,
    value_and_grad,
    vector_jacobian_product,
)
from .test_util import check_grads

__version__ = "0.1.0"

# The import order, checked by tests/engine/test_import_order.py: a module may import only
# modules listed before it (a package may import its own submodules).
LAYERS = [
    "ad_core.tracer",
    "ad_core.core",
    "ad_core.containers",
    "ad_core.numpy.wrapper",
    "ad_core.numpy.array_box",
    "ad_core.numpy.vjps",
    "ad_core.numpy.jvps",
    "ad_core.numpy.linalg",
    "ad_core.numpy.fft",
    "ad_core.numpy.random",
    "ad_core.numpy",
    "ad_core.differential_operators",
    "ad_core.wrap_util",
    "ad_core.builtins",
    "ad_core.extend",
    "ad_core.test_util",
    "ad_core.misc.flatten",
    "ad_core.misc.tracers",
    "ad_core.misc.optimizers",
    "ad_core.misc",
    "ad_core.scipy.special",
    "ad_core.scipy.linalg",
    "ad_core.scipy.signal",
    "ad_core.scipy.integrate",
    "ad_core.scipy.stats",
    "ad_core.scipy",
    "ad_core.recorder",
    "ad_core",
]

__all__ = [
    "check_grads",
    "checkpoint",
    "containers",
    "deriv",
    "elementwise_grad",
    "grad",
    "grad_and_aux",
    "grad_named",
    "hessian",
    "hessian_tensor_product",
    "hessian_vector_product",
    "holomorphic_grad",
    "jacobian",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "multigrad_dict",
    "numpy",
    "tensor_jacobian_product",
    "value_and_grad",
    "vector_jacobian_product",
]
