"""unbroadcast (inside one rule) versus accumulation (across graph edges): same sum, two places."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record
from bookkit import central_differences, checked, events_table, load_snippet_module, md_table

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
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


# How many of each the chapter predicts: broadcasting once means one leading sum inside add's
# rule and one edge into b; writing the copy out means no broadcast and one edge per row.
predicted = {"`broadcast_once`": (1, 1), "`used_twice`": (0, matrix.shape[0])}
fd = central_differences(lambda b: np.sum(matrix + b), b)
rows = []
for name, loss in [("`broadcast_once`", broadcast_once), ("`used_twice`", used_twice)]:
    with record() as recording:
        gradient = grad(loss)(b)
    sums = [e for e in helpers.unbroadcast_events(recording.events)
            if e.detail["stage"] in ("sum_leading", "sum_keepdims")]
    arrivals = [e for e in recording.of_kind("accumulate") if e.node == ROOT]
    rows.append([name, checked(len(sums), against=predicted[name][0]),
                 checked(len(arrivals), against=predicted[name][1]),
                 helpers.value_cell(gradient, fd, rtol=1e-8),
                 helpers.shape_cell(np.shape(gradient), b.shape)])
    if loss is used_twice:
        twice_arrivals = arrivals

print(md_table(
    ["loss", "sums inside `unbroadcast`", "contributions added into `b`", "`dL/db`", "shape"],
    rows,
))
print()
print("The two arrivals into `b` in `used_twice`, as `backward_pass` recorded them:")
print()
ones = np.ones(b.shape)  # each row's add hands its cotangent of ones straight to b
print(events_table(
    twice_arrivals,
    ["step", "count", "before", "contribution", "value"],
    checks={
        "count": lambda e: twice_arrivals.index(e) + 1,
        "before": lambda e: None if twice_arrivals.index(e) == 0 else ones * twice_arrivals.index(e),
        "contribution": lambda e: ones,
        "value": lambda e: ones * (twice_arrivals.index(e) + 1),
    },
))
