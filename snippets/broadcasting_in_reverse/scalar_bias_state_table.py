"""State snapshot, scalar bias: what the engine holds at each step of unbroadcasting (3,) -> ()."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from ad_core.numpy.wrapper import metadata
from bookkit import assert_shape_then_close, fmt_shape, load_snippet_module

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

x, b = helpers.SCALAR_X, helpers.SCALAR_BIAS

# --8<-- [start:record]
with record() as recording:
    grad_b = grad(lambda b: anp.sum(x + b))(b)
# --8<-- [end:record]

stages = helpers.unbroadcast_events(recording.events)
names = [event.detail["stage"] for event in stages]
# (3,) -> (): exactly one leading sum, no size-1 target axis, nothing complex.
assert names == ["enter", "sum_leading", "return"], names
assert stages[0].shape == x.shape and stages[-1].shape == np.shape(b) == ()
assert_shape_then_close(np.asarray(stages[-1].value), np.asarray(grad_b))
assert_shape_then_close(np.asarray(grad_b), np.asarray(float(x.size)))

print(helpers.backward_snapshot_table(recording.events, "add", "b", metadata(b)))
print()
print(
    f"The target shape `{fmt_shape(np.shape(b))}` is an empty tuple, so the `for` loop over "
    "`target_shape` has nothing to visit: one leading sum did all the work."
)
