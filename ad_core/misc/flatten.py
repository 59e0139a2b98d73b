"""One vector for a nested container of arrays, and the function that rebuilds the container.

    >>> import numpy as np
    >>> from ad_core.misc import flatten
    >>> vector, unflatten = flatten({"w": np.ones((2, 2)), "b": [0.5, np.zeros(1)]})
    >>> print(vector.tolist())
    [0.5, 0.0, 1.0, 1.0, 1.0, 1.0]
    >>> print(unflatten(vector)["w"].shape)
    (2, 2)

`unflatten` is the vector-Jacobian product of the flattening itself: flattening is linear
and only moves entries, so its transpose puts every entry of a vector back where it came from.
Because that VJP is built from traced `ad_core.numpy` rules, `unflatten` can be differentiated
like any other function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as onp

from .. import numpy as anp
from ..core import make_vjp
from ..tracer import getval


def flatten(value: Any) -> tuple[Any, Callable[[Any], Any]]:
    r"""Flatten any nesting of lists, tuples and dicts with arrays or scalars at the leaves.

    Returns `(vector, unflatten)`: `vector` is a 1-D array holding every leaf, raveled, in
    order (a dict's entries in the order of its sorted keys), and `unflatten(vector)`
    rebuilds the container, each leaf with its own shape. With $f$ the flattening map,

    $$\operatorname{unflatten}(v) = J_f^\top v,$$

    which is $f^{-1}(v)$, because $f$ only permutes entries ($J_f^\top J_f = I$).

    As in autograd, all leaves share one dtype in the vector (their common type), the keys of a
    dict must be sortable, and leaves must be floats or complex numbers: with an integer leaf,
    `unflatten` raises `TypeError` (autograd 1.9.1's `flatten` raises it already). Both
    `flatten` and `unflatten` can be traced: `grad` through either works.
    """
    unflatten, flat_value = make_vjp(_flatten, value)
    return flat_value, unflatten


def _concatenate(pieces: list[Any]) -> Any:
    # An empty container flattens to an empty float vector, as in autograd.
    if not pieces:
        return anp.array([])
    # Cast explicitly to the common dtype: the VJP of `astype` casts back, so `unflatten`
    # returns a float32 leaf of a mixed float32/float64 container as float32 (as autograd does).
    dtype = onp.result_type(*(getval(piece) for piece in pieces))
    return anp.concatenate(
        [piece if getval(piece).dtype == dtype else anp.astype(piece, dtype) for piece in pieces]
    )


def _flatten(value: Any) -> Any:
    # The type of the raw value decides, so that a traced container (a `SequenceBox` or a
    # `DictBox`) is walked like the list, tuple or dict inside it.
    kind = type(getval(value))
    if kind in (list, tuple):
        return _concatenate([_flatten(item) for item in value])
    if kind is dict:
        return _concatenate([_flatten(value[key]) for key in sorted(getval(value))])
    return anp.ravel(value)


def flatten_func(
    func: Callable[..., Any], example: Any
) -> tuple[Callable[..., Any], Callable[[Any], Any], Any]:
    """Turn `func`, a map from containers shaped like `example` to containers, into a map
    between flat vectors.

    Returns `(flat_func, unflatten, flat_example)`, where
    `flat_func(vector, *args) == flatten(func(unflatten(vector), *args))[0]`.
    """
    flat_example, unflatten = flatten(example)

    def flat_func(vector: Any, *args: Any) -> Any:
        return flatten(func(unflatten(vector), *args))[0]

    return flat_func, unflatten, flat_example
