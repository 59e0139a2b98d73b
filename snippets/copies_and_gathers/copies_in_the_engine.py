"""Where copies and gathers are differentiated in ad_core."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record, trace_graph
from ad_core.numpy import vjps, wrapper
from bookkit import events_table, fmt_array, mermaid_graph, show_source, source_map

print(
    source_map(
        [
            (wrapper.array_getitem, "table, index → rows", "indexing as a primitive (gather)"),
            (
                wrapper.untake,
                "rows, index, shape → table-shaped array",
                "scatter-add with `np.add.at`; the VJP of indexing",
            ),
            (vjps.grad_repeat, "cotangent of the copy → cotangent of `x`", "sums each block"),
            (vjps.grad_tile, "cotangent of the copy → cotangent of `x`", "sums the strided copies"),
            (vjps.unbroadcast, "cotangent → cotangent of the input's shape", "`broadcast_to`'s VJP"),
        ]
    )
)
print()
print(show_source(wrapper.untake))
print()
print(show_source(vjps.grad_tile))
print()

tokens = np.array([2, 0, 2])
table = np.arange(6.0).reshape(3, 2)
upstream = np.ones((tokens.size, 2))
with record() as recording:
    gradient = grad(lambda t: anp.sum(t[tokens] * upstream))(table)
occurrences = np.bincount(tokens, minlength=table.shape[0])
assert np.array_equal(gradient, np.repeat(occurrences[:, None], table.shape[1], axis=1))
events = recording.of_kind("forward", "vjp")
assert any(event.primitive == "array_getitem" for event in events)
graph = trace_graph(lambda t: anp.sum(t[tokens] * upstream), table)
assert [node.primitive for node in graph.nodes][1:] == ["array_getitem", "multiply", "sum"]
print(
    f"The traced graph of `sum(C[tokens] * g)` with `tokens = {tokens.tolist()}`: the lookup is "
    "one node however often a token repeats. So the repeats are not fan-out in the graph, and "
    "`backward_pass` cannot add them up: the rule's `np.add.at` has to."
)
print()
print(mermaid_graph(graph, names={0: "C"}))
print()
print(
    f"The recorder's view of `sum(C[tokens] * g)` with `tokens = {tokens.tolist()}` and `g` all "
    "ones: the forward primitives, then the VJP calls in reverse order."
)
print()
print(events_table(events, ["step", "kind", "primitive", "argnum", "shape", "value"]))
print()
repeated_token = int(np.argmax(occurrences))
unused_tokens = [int(t) for t in np.flatnonzero(occurrences == 0)]
print(
    f"The last VJP carries the gathered rows' cotangent back into the table's shape. Token "
    f"{repeated_token} was read {occurrences[repeated_token]} times, so its row holds "
    f"`{fmt_array(gradient[repeated_token])}`; token(s) `{unused_tokens}` were never read and "
    "their rows stay zero."
)
