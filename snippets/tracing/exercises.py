"""Self-test for the chapter on tracing; every answer is computed and checked."""

import warnings

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.inspect import trace_graph
from bookkit import collapsible, fmt_array

# 1. A product of three factors is two primitive calls.
cube_graph = trace_graph(lambda x: x * x * x, 2.0)
cube_primitives = [node.primitive for node in cube_graph.nodes if not node.is_root]
assert cube_primitives == ["multiply", "multiply"]
print(
    collapsible(
        "1. How many nodes does `trace_graph(lambda x: x * x * x, 2.0)` hold, and why?",
        f"{len(cube_graph.nodes)}: the root and {len(cube_primitives)} `multiply` nodes. Python "
        "evaluates `x * x * x` as `(x * x) * x`, two calls of `ArrayBox.__mul__`, and each call "
        "goes through the primitive `anp.multiply`. The engine sees operations, never the "
        "expression.",
    )
)


# 2. An output that does not depend on the input.
def clipped(x):
    total = anp.sum(x)
    return total if total > 0 else 0.0


point = np.array([-1.0, -2.0])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    zero_gradient = grad(clipped)(point)
assert np.array_equal(zero_gradient, np.zeros_like(point))
assert any("does not depend" in str(w.message) for w in caught)
print(
    collapsible(
        "2. `clipped(x)` returns `anp.sum(x)` when it is positive and `0.0` otherwise. What does "
        f"`grad(clipped)` return at `{fmt_array(point)}`?",
        f"`{fmt_array(zero_gradient)}`, with a warning. The comparison `total > 0` was `False`, "
        "so the function returned the constant `0.0`, which is not a box of this trace. "
        "`trace` notices that the output has no node, warns that the output does not depend "
        "on the input, and the gradient is zero, of the input's shape.",
    )
)

# 3. argmax + indexing versus the max primitive.
x = np.array([0.3, 2.7, -1.2, 1.9])
via_index = grad(lambda v: v[anp.argmax(v)])(x)
via_max = grad(anp.max)(x)
assert np.array_equal(via_index, via_max)
print(
    collapsible(
        "3. `anp.max` has its own VJP rule. Does `v[anp.argmax(v)]` give the same gradient?",
        f"Yes when the maximum is unique: both give `{fmt_array(via_max)}` at "
        f"`{fmt_array(x)}`. `argmax` only chooses an index (a plain integer); the derivative "
        "flows through the indexing primitive into the chosen element.",
    )
)

# 4. Count the edges out of the root.
graph = trace_graph(lambda v: v * 2.0 + v, 1.5)
root_id = graph.nodes[0].id
uses = sum(node.parents.count(root_id) for node in graph.nodes)
assert uses == 2
assert grad(lambda v: v * 2.0 + v)(1.5) == 3.0
print(
    collapsible(
        "4. In `v * 2.0 + v`, how many graph edges leave the root, and what does that mean for "
        "the backward pass?",
        f"{uses}: one into `multiply`, one into `add`. The root will receive {uses} "
        "contributions, $2$ and $1$, and must add them to get the derivative "
        f"`{fmt_array(grad(lambda v: v * 2.0 + v)(1.5))}`. That addition is the subject of "
        "[Fan-out](fan-out.md).",
    )
)
