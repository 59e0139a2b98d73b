"""Self-test for the chapter on fan-out; every answer is computed and checked."""

import numpy as np

from ad_core import grad, make_jvp
from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.recorder import record, trace_graph
from ad_core.tracer import toposort, trace
from bookkit import (
    Rendered,
    central_differences,
    checked,
    collapsible,
    fmt_array,
    given,
    md_table,
    text,
    yes_no,
)

# 1. x * x * x: three uses, three arrivals.
x0 = 1.5
with record() as recording:
    cube_gradient = grad(lambda x: x * x * x)(x0)
root_id = recording.of_kind("forward")[0].detail["parents"][0]
arrivals = [e for e in recording.of_kind("accumulate") if e.node == root_id]
cube_graph = trace_graph(lambda x: x * x * x, x0)
edges = sum(node.parents.count(cube_graph.nodes[0].id) for node in cube_graph.nodes)
print(
    collapsible(
        text(
            "1. How many contributions does `x` receive in `x * x * x` at `x` $=$ {x}, and what are they?",
            x=given(x0),
        ),
        text(
            "{count}: {parts}. Each is the product of the other two factors, $x \\cdot x$, and their "
            "sum is {total} $= 3x^2$. Python evaluates `(x * x) * x`: one arrival comes straight "
            "from the outer `multiply`, two come through the inner one.",
            count=checked(len(arrivals), against=edges),  # the traced graph's edges out of x
            parts=Rendered(", ").join(
                fmt_array(checked(e.detail["contribution"], against=x0 * x0, rtol=1e-15)) for e in arrivals
            ),
            total=checked(cube_gradient, against=3 * x0**2, rtol=1e-15),
        ),
    )
)


# 2. Softmax cross-entropy: exp(z) is used by the sum and by the division.
def overwriting_backward(g, end_node):
    outgrads = {end_node: g}
    for node in toposort(end_node):
        g = outgrads.pop(node)
        for parent, vjp in zip(node.parents, node.vjps, strict=True):
            outgrads[parent] = vjp(g)
    return g


def cross_entropy(z, label=1):
    e = anp.exp(z - anp.max(z))
    p = e / anp.sum(e)  # e has two children: the division and the sum
    return -anp.log(p[label])


z = np.array([0.5, 2.0, -1.0])
_, end_node = trace(VJPNode.new_root(z), cross_entropy, z)
right = backward_pass(1.0, end_node)
wrong = overwriting_backward(1.0, end_node)
softmax = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
central = central_differences(cross_entropy, z)


def last_arrivals_only(v, label=1):
    # What the overwriting pass differentiates: at each shared value only the use traced first
    # (whose contribution arrives last) sees v; the other uses are frozen at z. At `e` that is
    # `sum(e)`; at `z` it is `max(z)`.
    e_frozen = np.exp(z - np.max(z))
    return -np.log(e_frozen[label]) + np.log(np.sum(np.exp(z - np.max(v))))


def equals_gradient(g):
    return bool(np.allclose(g, central, rtol=1e-6, atol=1e-9))


print(
    collapsible(
        "2. In softmax cross-entropy, `e = exp(z - max(z))` feeds both `e / sum(e)` and "
        "`sum(e)`. What does the overwriting backward pass return for the logits?",
        md_table(
            ["backward pass", "gradient for `z`", "agrees with central differences?"],
            [
                [
                    "`backward_pass`",
                    checked(right, against=softmax - np.eye(3)[1], rtol=1e-14),
                    checked(equals_gradient(right), against=True, shown_as=yes_no),
                ],
                [
                    "overwriting",
                    checked(wrong, against=central_differences(last_arrivals_only, z), atol=1e-8),
                    checked(equals_gradient(wrong), against=False, shown_as=yes_no),
                ],
            ],
        )
        + "\n\nThe correct gradient is $p - \\text{onehot}(y)$, whose entries sum to zero. The "
        "overwriting pass keeps one path at each shared value: at `e` only the one through "
        "`sum(e)`, at `z` only the one through `max(z)`. What is left is $-\\text{onehot}$ at the "
        "position of the largest logit, a vector of the right shape that is not the derivative. "
        "Part III meets the same fork by hand in "
        "[Loss, output layer, tanh](../part3/loss-output-tanh.md).",
    )
)

# 3. Forward mode adds at fan-in instead.
with record() as forward_recording:
    _, tangent = make_jvp(lambda x: x * x)(x0)(1.0)
jvp_events = forward_recording.of_kind("jvp")
multiply_events = [e for e in forward_recording.of_kind("forward") if e.primitive == "multiply"]
print(
    collapsible(
        "3. Does forward mode need an accumulation step for `x * x`?",
        text(
            "Not at the shared input: a tangent flows *out* of `x` to both uses unchanged. The "
            "addition moves to the node with two traced arguments: `multiply` computed {count} JVP "
            "contributions, {parts}, and its tangent is their sum {tangent}. Reverse mode adds "
            "where values fan out; forward mode adds where they fan in.",
            # One JVP call per traced argument of the one multiply node.
            count=checked(len(jvp_events), against=len(multiply_events[0].detail["argnums"])),
            parts=Rendered(" and ").join(
                fmt_array(checked(e.value, against=x0, rtol=1e-15)) for e in jvp_events
            ),
            tangent=checked(tangent, against=2 * x0, rtol=1e-15),
        ),
    )
)

# 4. A repeated index is fan-out too.
table = np.arange(8.0).reshape(4, 2)
tokens = np.array([0, 2, 0])
counts = grad(lambda E: anp.sum(E[tokens]))(table)
lookups = np.bincount(tokens, minlength=table.shape[0])
print(
    collapsible(
        text(
            "4. An embedding table of shape {shape} is indexed with tokens {tokens}. What is the "
            "gradient of the sum of the looked-up rows?",
            shape=given(table.shape),
            tokens=given(tokens),
        ),
        text(
            "{counts}\n\nEach lookup sends a row of ones back to the row it read, and they add up, so "
            "every row of the gradient counts how often that row was looked up: {lookups}. The "
            "indexing rule scatters with `np.add.at`, which adds at repeated indices (NumPy's plain "
            "`g[tokens] += ...` would not). See [Copies and gathers](../part2/copies-and-gathers.md).",
            counts=checked(
                counts,
                against=np.repeat(lookups[:, None], table.shape[1], axis=1).astype(float),
                shown_as=lambda v: "```text\n" + fmt_array(v) + "\n```",
            ),
            lookups=checked(counts[:, 0].astype(int), against=[list(tokens).count(row) for row in range(4)]),
        ),
    )
)
