"""Self-test for the chapter on tracing; every answer is computed and checked."""

import ast
import warnings

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from ad_core.recorder import trace_graph
from bookkit import checked, collapsible, fmt_array, given, text

# 1. A product of three factors is two primitive calls.


def multiplications_in(expression: str) -> int:
    return sum(isinstance(node, ast.Mult) for node in ast.walk(ast.parse(expression)))


cube_graph = trace_graph(lambda x: x * x * x, 2.0)
cube_primitives = [node.primitive for node in cube_graph.nodes if not node.is_root]
assert cube_primitives == ["multiply", "multiply"]
print(
    collapsible(
        "1. How many nodes does `trace_graph(lambda x: x * x * x, 2.0)` hold, and why?",
        text(
            "{nodes}: the root and {multiplies} `multiply` nodes. Python evaluates `x * x * x` as "
            "`(x * x) * x`, two calls of `ArrayBox.__mul__`, and each call goes through the "
            "primitive `anp.multiply`. The engine sees operations, never the expression.",
            # Another count: the operators in the expression's syntax tree, plus the root.
            nodes=checked(len(cube_graph.nodes), against=1 + multiplications_in("x * x * x")),
            multiplies=checked(len(cube_primitives), against=multiplications_in("x * x * x")),
        ),
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
assert any("does not depend" in str(w.message) for w in caught)
print(
    collapsible(
        text(
            "2. `clipped(x)` returns `total if total > 0 else 0.0`, with `total = anp.sum(x)`. "
            "What does `grad(clipped)` return at `{point}`?",
            point=fmt_array(given(point)),
        ),
        text(
            "{gradient}, with a warning. The comparison `total > 0` was false, so the function "
            "returned the plain float of its `else` branch, which is not a box of this trace. "
            "`trace` notices that the output has no node, warns that the output does not depend "
            "on the input, and the gradient is zero, of the input's shape.",
            # In a field of its own: text() drops a field's text before it reads the words, so
            # backticks around a field would pair with the next code span's.
            gradient=text("`{g}`", g=fmt_array(checked(zero_gradient, against=np.zeros(point.shape)))),
        ),
    )
)

# 3. argmax + indexing versus the max primitive.
x = np.array([0.3, 2.7, -1.2, 1.9])
via_index = grad(lambda v: v[anp.argmax(v)])(x)
via_max = grad(anp.max)(x)
assert np.array_equal(via_max, np.eye(x.size)[np.argmax(x)])
print(
    collapsible(
        "3. `anp.max` has its own VJP rule. Does `v[anp.argmax(v)]` give the same gradient?",
        text(
            "Yes when the maximum is unique: both give `{gradient}` at `{x}`. `argmax` only "
            "chooses an index (a plain integer); the derivative flows through the indexing "
            "primitive into the chosen element.",
            gradient=fmt_array(checked(via_index, against=np.eye(x.size)[np.argmax(x)])),
            x=fmt_array(given(x)),
        ),
    )
)

# 4. Count the edges out of the root.
graph = trace_graph(lambda v: v * 2.0 + v, 1.5)
root_id = graph.nodes[0].id
uses = sum(node.parents.count(root_id) for node in graph.nodes)
print(
    collapsible(
        "4. In `v * 2.0 + v`, how many graph edges leave the root, and what does that mean for "
        "the backward pass?",
        text(
            "{uses}: one into `multiply`, one into `add`. The root will receive {uses} "
            "contributions, $2$ and $1$, and must add them to get the derivative `{derivative}`. "
            "That addition is the subject of [Fan-out](fan-out.md).",
            # Another count: the occurrences of the name v in the expression.
            uses=checked(
                uses, against=sum(isinstance(n, ast.Name) for n in ast.walk(ast.parse("v * 2.0 + v")))
            ),
            derivative=fmt_array(checked(grad(lambda v: v * 2.0 + v)(1.5), against=2.0 + 1.0)),
        ),
    )
)
