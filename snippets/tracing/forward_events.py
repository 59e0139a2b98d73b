"""What the recorder sees while a function is traced: one `forward` event per primitive call."""

import numpy as np

from ad_core import make_vjp
from ad_core import numpy as anp
from ad_core.inspect import record
from bookkit import events_table

w = np.array([0.5, -1.0, 2.0])
x = np.array([1.0, 0.5, -0.25])


# --8<-- [start:record]
def loss(x):
    return anp.sum(anp.tanh(x * w) ** 2)


with record() as recording:
    vjp, value = make_vjp(loss)(x)  # traces; no backward pass yet
# --8<-- [end:record]

events = recording.events
assert events and all(event.kind == "forward" for event in events), "tracing runs no rule"
assert [event.node for event in events] == list(range(1, len(events) + 1))
assert np.isclose(events[-1].value, value, rtol=0, atol=0)
print(events_table(events, ["step", "node", "primitive", "parents", "argnums", "value", "shape"]))
print()
print(
    f"{len(events)} events, all of kind `forward`: tracing computes values and builds nodes. "
    "Each node has made its VJP closures, but none has been called yet. The root is node 0; "
    "it has no event of its own because no primitive created it."
)
