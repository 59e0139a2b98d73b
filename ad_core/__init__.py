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
from .differential_operators import (
    elementwise_grad,
    grad,
    hessian,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_jvp,
    make_vjp,
    value_and_grad,
)
from .test_util import check_grads

__version__ = "0.1.0"

__all__ = [
    "check_grads",
    "containers",
    "elementwise_grad",
    "grad",
    "hessian",
    "hessian_vector_product",
    "holomorphic_grad",
    "jacobian",
    "make_jvp",
    "make_vjp",
    "numpy",
    "value_and_grad",
]
