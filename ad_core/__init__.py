"""ad_core: reverse- and forward-mode automatic differentiation over NumPy.

    >>> import ad_core.numpy as anp
    >>> from ad_core import grad
    >>> print(grad(anp.tanh)(0.0))
    1.0

The layers, read top-down: `tracer` (boxes, nodes, primitives) → `core` (the backward and
forward passes, rule registration, vector spaces) → `differential_operators` (`grad` and
friends) → `numpy` (the wrapped namespace and its rules).
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
