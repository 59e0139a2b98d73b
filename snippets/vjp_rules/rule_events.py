"""State snapshot: what the engine does when a binary rule with unbroadcast_f runs."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record
from bookkit import checked, events_table, text

batch = np.arange(6.0).reshape(2, 3)
bias = np.array([10.0, 20.0, 30.0])

# --8<-- [start:record]
with record() as recording:
    bias_gradient = grad(lambda b: anp.sum(batch * b))(bias)
# --8<-- [end:record]

# What each event must hold, from closed forms: the product, its sum, the seed 1, the
# ones that sum's rule sends back, g * batch (= batch) before the reduction, its column sums after.
column_sums = np.array([sum(batch[:, j]) for j in range(3)])
expected_value = {
    ("forward", "multiply"): batch * bias,
    ("forward", "sum"): float(np.sum(batch * bias)),
    ("visit", "sum"): 1.0,
    ("vjp", "sum"): np.ones((2, 3)),
    ("accumulate", "multiply"): np.ones((2, 3)),
    ("visit", "multiply"): np.ones((2, 3)),
    ("unbroadcast", "enter"): batch,
    ("unbroadcast", "sum_leading"): column_sums,
    ("unbroadcast", "return"): column_sums,
    ("vjp", "multiply"): column_sums,
    ("accumulate", "root"): column_sums,
    ("visit", "root"): column_sums,
}


class Shape(tuple):
    """A shape as a new tuple object: `()` is one shared object in CPython, and checked()
    refuses to compare an object with itself."""


def key(event):
    return (event.kind, event.detail["stage"] if event.kind == "unbroadcast" else event.primitive)


assert {key(event) for event in recording.events} == set(expected_value)
vjp_of_multiply = next(e for e in recording.events if e.kind == "vjp" and e.primitive == "multiply")
print(events_table(
    recording.events,
    ["step", "kind", "node", "primitive", "argnum", "value", "shape",
     ("unbroadcast stage", lambda e: e.detail.get("stage"))],
    checks={
        "value": lambda e: expected_value[key(e)],
        "shape": lambda e: Shape(np.shape(expected_value[key(e)])),
    },
))
print()
print(text(
    "The `vjp` row of `multiply` (step {step}) is the closure built by the maker for `bias` "
    "(`argnum=1`): it received a cotangent of shape {g_shape}, computed `g * batch`, let "
    "`unbroadcast` sum over the rows (`axis=0`), and handed back shape {shape}, the shape of `bias`.",
    # The closure's event comes right after unbroadcast returned, inside that closure.
    step=checked(vjp_of_multiply.step, against=next(
        e.step for e in recording.events if e.detail.get("stage") == "return") + 1),
    g_shape=checked(vjp_of_multiply.detail["cotangent"].shape, against=batch.shape),
    shape=checked(vjp_of_multiply.shape, against=bias.shape),
))
