"""Where contributions are added in the engine: a source map computed from ad_core's code, and a
check, on the live source, that each function listed does the adding its row says."""

import inspect

from ad_core.core import add_cotangents, backward_pass
from ad_core.numpy.vjps import unbroadcast
from ad_core.numpy.wrapper import untake
from bookkit import source_map

rows = [
    (
        backward_pass,
        "contribution, running total → new total",
        "stores a node's first contribution as it is, hands each later one to `add_cotangents`",
    ),
    (
        add_cotangents,
        "running total, contribution → their sum",
        "adds across graph edges: `x + y` for arrays, entry by entry for containers",
    ),
    (
        unbroadcast,
        "broadcast cotangent → input-shaped cotangent",
        "adds across copies made by broadcasting, inside one rule (`anp.sum`)",
    ),
    (
        untake,
        "cotangent of `A[index]` → cotangent of `A`",
        "adds across repeated indices, inside one rule (`np.add.at`)",
    ),
]
# Each row's role, read off the live source: the operation it names is there.
does = {
    backward_pass: ["previous is None", "add_cotangents(previous, contribution)"],
    add_cotangents: ["return x + y"],
    unbroadcast: ["anp.sum(x, axis=broadcast_idx)", "anp.sum(x, axis=axis, keepdims=True)"],
    untake: ["_np.add.at("],
}
for function, needles in does.items():
    source = inspect.getsource(function)
    for needle in needles:
        assert needle in source, (function.__name__, needle)
# backward_pass itself never adds: its only addition is the call.
body = inspect.getsource(backward_pass).split('"""')[-1]
assert " + " not in body and "+=" not in body
print(source_map(rows))
