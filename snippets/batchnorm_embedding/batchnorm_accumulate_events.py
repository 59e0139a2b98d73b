"""Recorded from ad_core on a small BatchNorm: the tensors whose cotangent arrives twice."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record, trace_graph
from bookkit import checked, events_table, given, mermaid_graph, text

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
accumulates = [e for e in rec.events if e.kind == "accumulate"]
first_total = {}
for e in accumulates:
    first_total.setdefault(e.node, e.value)   # what the node held after its first arrival
second = [e for e in accumulates if e.detail["count"] == 2]
assert sorted(names[e.node] for e in second) == ["bndiff", "hprebn"]
through_mean = next(e for e in second if names[e.node] == "hprebn").detail["contribution"]
# The mean's contribution is one row copied over the batch: the backward pass of a sum.
assert np.all(through_mean == through_mean[:1])
ids = {name: node for node, name in names.items()}
print(text(
    "The graph for {n} examples and {H} units; `hprebn` is node {a} and `bndiff` node {b}.",
    n=given(n), H=given(H),
    # node ids are positions in the traced graph's forward order
    a=checked(ids["hprebn"], against=NAMES.index("hprebn")),
    b=checked(ids["bndiff"], against=NAMES.index("bndiff")),
))
print()
print(mermaid_graph(graph, names=names, direction="TB", compact=True))
print()
# Closed forms of the second arrivals: through the mean, -sum(dbndiff)/n copied to every row;
# through the square, 2 * bndiff * dbndiff2.
bnmeani = x.mean(axis=0, keepdims=True)
diff = x - bnmeani
var_eps = (diff**2).sum(axis=0, keepdims=True) / (n - 1) + 1e-5
dbnraw = upstream
dbnvar_inv = (diff * dbnraw).sum(axis=0, keepdims=True)
dbndiff2 = -0.5 * var_eps**-1.5 * dbnvar_inv / (n - 1) * np.ones_like(x)
dbndiff = var_eps**-0.5 * dbnraw + 2 * diff * dbndiff2
closed_form = {"bndiff": 2 * diff * dbndiff2,
               "hprebn": np.ones_like(x) * -dbndiff.sum(axis=0, keepdims=True) / n}
print(events_table(
    second,
    ["step", ("into node", lambda e: names[e.node]), "count", "before", "contribution",
     ("total", lambda e: e.value)],
    checks={
        # arrivals at the node so far, counted over the recorded events
        "count": lambda e: sum(a.node == e.node and a.step <= e.step for a in accumulates),
        "before": lambda e: first_total[e.node],
        "contribution": lambda e: closed_form[names[e.node]],
        "total": lambda e: first_total[e.node] + closed_form[names[e.node]],
    },
    tolerance={"contribution": 1e-12, "total": 1e-12},
))
print()
print(text(
    "`bndiff` feeds both the square (the variance) and the normalised output; `hprebn` feeds "
    "both the mean and the difference. In each case the engine's second arrival is added to the "
    "first, exactly the two `+=` lines of the hand-written BatchNorm backward (each "
    "contribution checked against its closed form). The contribution through the mean is the "
    "same in all {n} rows: one {shape} row copied over the batch, the backward pass of a sum.",
    n=checked(int(np.sum(np.all(through_mean == through_mean[:1], axis=1))), against=n),
    shape=checked(through_mean[:1].shape, against=(1, H)),
))
