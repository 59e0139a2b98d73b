"""Recorded from ad_core on a small BatchNorm: the tensors whose cotangent arrives twice."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record, trace_graph
from bookkit import events_table, fmt_shape, mermaid_graph

n, H = 4, 2
rng = np.random.default_rng(1)
x = rng.standard_normal((n, H))
upstream = rng.standard_normal((n, H))
NAMES = ["hprebn", "sum", "bnmeani", "bndiff", "bndiff2", "sum", "bnvar", "add eps",
         "bnvar_inv", "bnraw", "times upstream", "loss"]
PRIMITIVES = ["root", "sum", "multiply", "subtract", "power", "sum", "multiply", "add", "power",
              "multiply", "multiply", "sum"]


def batchnorm_loss(hprebn):
    bnmeani = anp.sum(hprebn, axis=0, keepdims=True) * (1.0 / n)
    bndiff = hprebn - bnmeani
    bnvar = anp.sum(bndiff**2, axis=0, keepdims=True) * (1.0 / (n - 1))
    bnraw = bndiff * (bnvar + 1e-5) ** -0.5
    return anp.sum(bnraw * upstream)       # a loss whose gradient at bnraw is `upstream`


graph = trace_graph(batchnorm_loss, x)
assert [node.primitive for node in graph.nodes] == PRIMITIVES
names = {node.id: name for node, name in zip(graph.nodes, NAMES, strict=True)}
with record() as rec:
    grad(batchnorm_loss)(x)
second = [e for e in rec.events if e.kind == "accumulate" and e.detail["count"] == 2]
assert sorted(names[e.node] for e in second) == ["bndiff", "hprebn"]
through_mean = next(e for e in second if names[e.node] == "hprebn").detail["contribution"]
# The mean's contribution is one row copied over the batch: the backward pass of a sum.
assert np.all(through_mean == through_mean[:1])
ids = {name: node for node, name in names.items()}
print(
    f"The graph for {n} examples and {H} units; `hprebn` is node {ids['hprebn']} and `bndiff` "
    f"node {ids['bndiff']}."
)
print()
print(mermaid_graph(graph, names=names, direction="TB"))
print()
print(events_table(
    second,
    ["step", ("into node", lambda e: names[e.node]), "count", "before", "contribution",
     ("total", lambda e: e.value)],
))
print()
print(
    "`bndiff` feeds both the square (the variance) and the normalised output; `hprebn` feeds "
    "both the mean and the difference. In each case the engine's second arrival is added to the "
    "first, exactly the two `+=` lines of the hand-written BatchNorm backward. The contribution "
    f"through the mean is the same in all {n} rows: one `{fmt_shape(through_mean[:1].shape)}` row "
    "copied over the batch, the backward pass of a sum."
)
