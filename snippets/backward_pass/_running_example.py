"""The running example of Part I, shared by the snippets of this chapter and of "Linear maps"
(not shown on the page)."""

from typing import Any

import numpy as np

from ad_core import numpy as anp

POINT = np.array([2.0, 5.0])


def f(x: Any) -> Any:
    """Baydin et al.'s example, one primitive per line: ln x1 + x1 * x2 - sin x2."""
    x1, x2 = x[0], x[1]
    v1 = anp.log(x1)
    v2 = x1 * x2
    v3 = anp.sin(x2)
    v4 = v1 + v2
    v5 = v4 - v3
    return v5


def baydin_names(forward_events: list) -> dict[int, str]:
    """Recorder node id → Baydin's name: the root is x, then v_{-1}, v_0, v_1, ..."""
    names = {event.node: f"v_{{{position - 1}}}" for position, event in enumerate(forward_events)}
    names[forward_events[0].detail["parents"][0]] = "x"
    return names


def closed_form_gradient(x: np.ndarray) -> np.ndarray:
    return np.array([1 / x[0] + x[1], x[0] - np.cos(x[1])])


# An oracle without the engine, for checking recorded cotangents: each node's adjoint dy/dv_i
# from the closed form, and the local partial derivative of each edge, with plain floats.
def adjoint(name: str, x: np.ndarray = POINT) -> Any:
    """dy/dv for Baydin's name of a node (`x` is the input vector)."""
    x1, x2 = x
    return {
        "v_{5}": 1.0,
        "v_{4}": 1.0,
        "v_{3}": -1.0,
        "v_{2}": 1.0,
        "v_{1}": 1.0,
        "v_{0}": x1 - np.cos(x2),
        "v_{-1}": 1 / x1 + x2,
        "x": closed_form_gradient(x),
    }[name]


def local_partial(child: str, argnum: int, x: np.ndarray = POINT) -> Any:
    """The partial derivative of node `child` with respect to its argument `argnum`."""
    x1, x2 = x
    return {
        ("v_{-1}", 0): np.array([1.0, 0.0]),  # x[0]: picks entry 0
        ("v_{0}", 0): np.array([0.0, 1.0]),
        ("v_{1}", 0): 1 / x1,  # log
        ("v_{2}", 0): x2,  # x1 * x2
        ("v_{2}", 1): x1,
        ("v_{3}", 0): np.cos(x2),  # sin
        ("v_{4}", 0): 1.0,  # add
        ("v_{4}", 1): 1.0,
        ("v_{5}", 0): 1.0,  # subtract
        ("v_{5}", 1): -1.0,
    }[child, argnum]


def contribution(child: str, argnum: int, x: np.ndarray = POINT) -> Any:
    """What the edge from `child` to its argument `argnum` carries back: adjoint times partial."""
    return adjoint(child, x) * local_partial(child, argnum, x)
