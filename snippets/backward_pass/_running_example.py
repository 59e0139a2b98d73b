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
