"""Self-test for the chapter on fan-out; every answer is computed and checked."""

import numpy as np

from ad_core import grad, make_jvp
from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.inspect import record
from ad_core.tracer import toposort, trace
from bookkit import collapsible, fmt_array, md_table

# 1. x * x * x: three uses, three arrivals.
x0 = 1.5
with record() as recording:
    cube_gradient = grad(lambda x: x * x * x)(x0)
root_id = recording.of_kind("forward")[0].detail["parents"][0]
arrivals = [e for e in recording.of_kind("accumulate") if e.node == root_id]
assert len(arrivals) == 3 and np.isclose(cube_gradient, 3 * x0**2, rtol=1e-15)
print(
    collapsible(
        f"1. How many contributions does `x` receive in `x * x * x` at `x = {x0}`, and what are they?",
        f"{len(arrivals)}: "
        + ", ".join(f"`{fmt_array(e.detail['contribution'])}`" for e in arrivals)
        + f". Each is the product of the other two factors, $x \\cdot x$, and their sum is "
        f"`{fmt_array(cube_gradient)}` $= 3x^2$. Python evaluates `(x * x) * x`: one arrival "
        "comes straight from the outer `multiply`, two come through the inner one.",
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
assert np.allclose(right, softmax - np.eye(3)[1], rtol=1e-14)
assert not np.allclose(wrong, right)
print(
    collapsible(
        "2. In softmax cross-entropy, `e = exp(z - max(z))` feeds both `e / sum(e)` and "
        "`sum(e)`. What does the overwriting backward pass return for the logits?",
        md_table(
            ["backward pass", "gradient for `z`", "sum of entries"],
            [
                ["`backward_pass`", fmt_array(right), fmt_array(right.sum())],
                ["overwriting", fmt_array(wrong), fmt_array(wrong.sum())],
                ["$p - \\text{onehot}(y)$", fmt_array(softmax - np.eye(3)[1]), "—"],
            ],
        )
        + "\n\nThe correct gradient is $p - \\text{onehot}(y)$, whose entries sum to zero. The "
        "overwriting pass keeps only one of the paths through `e` (and through `z`, used by "
        "`max` and by the subtraction), so the result is a plausible-looking vector that is "
        "not the derivative. Part III meets the same fork by hand in "
        "[Loss, output layer, tanh](../part3/loss-output-tanh.md).",
    )
)

# 3. Forward mode adds at fan-in instead.
with record() as forward_recording:
    _, tangent = make_jvp(lambda x: x * x)(x0)(1.0)
jvp_events = forward_recording.of_kind("jvp")
assert len(jvp_events) == 2 and np.isclose(tangent, 2 * x0)
print(
    collapsible(
        "3. Does forward mode need an accumulation step for `x * x`?",
        "Not at the shared input: a tangent flows *out* of `x` to both uses unchanged. The "
        f"addition moves to the node with two traced arguments: `multiply` computed "
        f"{len(jvp_events)} JVP contributions, "
        + " and ".join(f"`{fmt_array(e.value)}`" for e in jvp_events)
        + f", and its tangent is their sum `{fmt_array(tangent)}`. Reverse mode adds where "
        "values fan out; forward mode adds where they fan in.",
    )
)

# 4. A repeated index is fan-out too.
table = np.arange(8.0).reshape(4, 2)
tokens = np.array([0, 2, 0])
counts = grad(lambda E: anp.sum(E[tokens]))(table)
lookups = np.bincount(tokens, minlength=table.shape[0])
assert np.array_equal(counts, np.repeat(lookups[:, None], table.shape[1], axis=1).astype(float))
print(
    collapsible(
        f"4. An embedding table of shape `{table.shape}` is indexed with tokens "
        f"`{fmt_array(tokens)}`. What is the gradient of the sum of the looked-up rows?",
        f"```text\n{fmt_array(counts)}\n```\n\n"
        "Each lookup sends a row of ones back to the row it read, and they add up, so every "
        "row of the gradient counts how often that row was looked up: "
        f"`{fmt_array(lookups)}`. The indexing rule scatters with `np.add.at`, which adds at "
        "repeated indices "
        "(plain `g[tokens] += ...` would not). See "
        "[Copies and gathers](../part2/copies-and-gathers.md).",
    )
)
