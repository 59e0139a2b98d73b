"""Where copies and gathers are differentiated in ad_core."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.numpy import vjps, wrapper
from ad_core.recorder import record, trace_graph
from bookkit import checked, events_table, fmt_array, given, mermaid_graph, show_source, source_map, text

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
    text(
        "The traced graph of `sum(C[tokens] * g)` with `tokens = {tokens}`: the lookup is "
        "one node however often a token repeats. So the repeats are not fan-out in the graph, and "
        "`backward_pass` cannot add them up: the rule's `np.add.at` has to.",
        tokens=given(tokens.tolist()),
    )
)
print()
print(mermaid_graph(graph, names={0: "C"}))
print()
print(
    text(
        "The recorder's view of `sum(C[tokens] * g)` with `tokens = {tokens}` and `g` all "
        "ones: the forward primitives, then the VJP calls in reverse order.",
        tokens=given(tokens.tolist()),
    )
)
print()

# What each event must hold, computed with NumPy alone: the forward values, and the cotangents
# (the sum's is ones; the product passes it times g; the lookup adds row by row, by loops).
gathered = np.stack([table[t] for t in tokens])
by_loops = np.zeros_like(table)
for position, token in enumerate(tokens):
    by_loops[token] += upstream[position]
expected_value = {
    ("forward", "array_getitem"): gathered,
    ("forward", "multiply"): gathered * upstream,
    ("forward", "sum"): np.float64(sum(float(v) for v in (gathered * upstream).ravel())),
    ("vjp", "sum"): np.ones_like(upstream),
    ("vjp", "multiply"): np.ones_like(upstream) * upstream,
    ("vjp", "array_getitem"): by_loops,
}


def shape_cell(shape: tuple[int, ...]):
    # CPython has a single empty tuple, which `checked` takes for a comparison of an object with
    # itself; a scalar's shape is therefore shown (and compared) as the text "()".
    return shape if shape else "()"


print(
    events_table(
        events,
        ["step", "kind", "primitive", "argnum", ("shape", lambda event: shape_cell(event.shape)), "value"],
        checks={
            "shape": lambda event: shape_cell(np.shape(expected_value[(event.kind, event.primitive)])),
            "value": lambda event: expected_value[(event.kind, event.primitive)],
        },
    )
)
print()
repeated_token = int(np.argmax(occurrences))
print(
    text(
        "The last VJP carries the gathered rows' cotangent back into the table's shape. Token "
        "{token} was read {times} times, so its row holds {row}; token(s) {unused} were never read and "
        "their rows stay zero.",
        token=given(repeated_token),
        times=checked(int(occurrences[repeated_token]), against=int(np.sum(tokens == repeated_token))),
        row=checked(
            gradient[repeated_token], against=by_loops[repeated_token], shown_as=lambda v: f"`{fmt_array(v)}`"
        ),
        unused=checked(
            [int(t) for t in np.flatnonzero(occurrences == 0)],
            against=sorted(set(range(table.shape[0])) - {int(t) for t in tokens}),
            shown_as=lambda v: f"`{v}`",
        ),
    )
)
