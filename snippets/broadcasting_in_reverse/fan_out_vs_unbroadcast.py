"""unbroadcast (inside one rule) versus accumulation (across graph edges): same sum, two places."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from bookkit import assert_shape_then_close, events_table, load_snippet_module, md_table

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")
matrix, b = helpers.MATRIX, helpers.VECTOR_BIAS
ROOT = 0  # the recorder numbers the root (b) 0


# --8<-- [start:versions]
def broadcast_once(b):
    # One add: NumPy copies b into both rows.
    return anp.sum(matrix + b)


def used_twice(b):
    # Two adds: you wrote out the copy yourself.
    return anp.sum(matrix[0] + b) + anp.sum(matrix[1] + b)
# --8<-- [end:versions]


rows = []
gradients = {}
for name, loss in [("`broadcast_once`", broadcast_once), ("`used_twice`", used_twice)]:
    with record() as recording:
        gradients[name] = grad(loss)(b)
    sums = [e for e in helpers.unbroadcast_events(recording.events)
            if e.detail["stage"] in ("sum_leading", "sum_keepdims")]
    arrivals = [e for e in recording.of_kind("accumulate") if e.node == ROOT]
    rows.append([name, str(len(sums)), str(len(arrivals)), helpers.value_cell(gradients[name]),
                 helpers.shape_cell(np.shape(gradients[name]))])
    if loss is used_twice:
        twice_arrivals = arrivals

assert_shape_then_close(gradients["`broadcast_once`"], gradients["`used_twice`"])
assert [int(r[1]) for r in rows] == [1, 0] and [int(r[2]) for r in rows] == [1, 2]

print(md_table(
    ["loss", "sums inside `unbroadcast`", "contributions added into `b`", "`dL/db`", "shape"],
    rows,
))
print()
print("The two arrivals into `b` in `used_twice`, as `backward_pass` recorded them:")
print()
print(events_table(twice_arrivals, ["step", "count", "before", "contribution", "value"]))
