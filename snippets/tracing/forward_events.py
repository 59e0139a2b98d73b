"""What the recorder sees while a function is traced: one `forward` event per primitive call."""

import numpy as np

from ad_core import make_vjp
from ad_core import numpy as anp
from ad_core.recorder import record
from bookkit import checked, events_table, fmt_shape, text

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
# The same chain computed with NumPy alone: x * w, tanh, the square, the sum. Each primitive's
# only boxed argument is argument 0, and its parent is the node made just before it.
chain = [x * w]
chain += [np.tanh(chain[-1])]
chain += [chain[-1] ** 2]
chain += [np.sum(chain[-1])]
print(
    events_table(
        events,
        # The shape as text: `()` is one shared object, which checked() takes for a self-check.
        ["step", "node", "primitive", "parents", "argnums", "value", ("shape", lambda e: fmt_shape(e.shape))],
        checks={
            "parents": lambda event: tuple([event.step]),
            "argnums": lambda event: tuple([0]),  # a new tuple: `(0,)` may be the engine's own
            "value": lambda event: chain[event.step],
            "shape": lambda event: fmt_shape(np.shape(chain[event.step])),
        },
        # NumPy and the engine call the same functions on the same values: exact but for the
        # last bit of the sum.
        tolerance={"value": 1e-15},
    )
)
print()
print(
    text(
        "{count} events, all of kind `forward`: tracing computes values and builds nodes. Each "
        "node has made its VJP closures, but none has been called yet. The root is node {root}; it "
        "has no event of its own because no primitive created it.",
        count=checked(len(events), against=len(chain)),
        root=checked(events[0].detail["parents"][0], against=0),
    )
)
