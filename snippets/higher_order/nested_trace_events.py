"""State snapshot of grad(grad(tanh)): the inner backward pass is recorded by the outer trace."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from bookkit import events_table

# --8<-- [start:record]
with record() as recording:
    second_derivative = grad(grad(anp.tanh))(0.5)
# --8<-- [end:record]

t = np.tanh(0.5)
np.testing.assert_allclose(second_derivative, -2 * t * (1 - t**2), rtol=1e-14)
events = recording.events
first_visit = next(i for i, e in enumerate(events) if e.kind == "visit")
last_forward = max(i for i, e in enumerate(events) if e.kind == "forward")
# The inner backward pass ends when it reaches its own root, the first root to be visited.
inner_root_visit = next(i for i, e in enumerate(events) if e.kind == "visit" and e.primitive == "root")
assert first_visit < last_forward < inner_root_visit  # forward events *during* a backward pass


def phase(event) -> str:
    index = events.index(event)
    if index < first_visit:
        return "tracing tanh (both levels)"
    if index <= inner_root_visit:
        return "inner backward pass, recorded by the outer trace"
    return "outer backward pass"


phases = [phase(e) for e in events]
inner_backward_forwards = [
    e.primitive for e, p in zip(events, phases, strict=True) if e.kind == "forward" and p.startswith("inner")
]
assert {"power", "subtract", "multiply"} <= set(inner_backward_forwards)
print(events_table(events, ["step", "kind", "node", "primitive", "argnum", "value",
                            ("phase", phase)]))
print(
    f"\nThe `forward` rows in the middle phase are the inner rule `g * (1 - ans**2)` running on "
    f"boxes of the outer trace: {', '.join(f'`{p}`' for p in inner_backward_forwards)}. The outer "
    f"backward pass then walks back through them and returns `{second_derivative:.4f}`, "
    "which is $-2\\tanh x\\,(1 - \\tanh^2 x)$ at $x = 0.5$."
)
