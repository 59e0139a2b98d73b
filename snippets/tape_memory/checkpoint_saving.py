"""The saving of checkpointing, measured: a chain of 64 layers plain and in 8 checkpointed
segments of 8 layers; live bytes between the passes, the backward pass's peak, and the work."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from ad_core.recorder import record
from bookkit import checked, given, load_snippet_module, md_table, text

measure = load_snippet_module(Path(__file__).with_name("_measure.py"))
x = measure.start_point()
depth, segment = 64, 8
segments = depth // segment

plain = measure.measure(measure.chain(depth), x)
saved = measure.measure(measure.checkpointed_chain(depth, segment), x)
np.testing.assert_array_equal(saved.gradient, plain.gradient)  # the same floats, recomputed
expected_gradient = np.ones_like(x)  # the chain rule by hand, layer by layer from the output
value = x
inputs = []
for _ in range(depth):
    inputs.append(value)
    value = np.sin(value) * 0.9
for value in reversed(inputs):
    expected_gradient = expected_gradient * 0.9 * np.cos(value)
np.testing.assert_allclose(plain.gradient, expected_gradient, rtol=1e-12)


def traced_work(loss):
    """Primitives traced and VJP calls, in the forward pass and in the backward pass."""
    with record() as recording:
        vjp, _ = make_vjp(loss)(x[:3])
        forward_traced = len(recording.of_kind("forward"))
        vjp(1.0)
    return forward_traced, len(recording.of_kind("forward")) - forward_traced, len(recording.of_kind("vjp"))


plain_work = traced_work(measure.chain(depth))
saved_work = traced_work(measure.checkpointed_chain(depth, segment))


# The formulas, from what each closure holds (see above): the plain tape keeps the input of
# every sin but x; the checkpointed one the input of every segment but x. At its peak the
# backward pass also holds three arrays of one rule (incoming cotangent, cos(x), product); the
# checkpointed pass holds, besides, the recomputed segment's inputs and the segment's cotangent.
rows = [
    ["plain", measure.activations(plain.kept_arrays, depth - 1),
     measure.activations(plain.peak_arrays, depth + 2),
     checked(plain.forward_evaluations, against=depth), checked(plain.backward_evaluations, against=0),
     checked(plain_work[0], against=2 * depth + 1), checked(plain_work[1], against=0),
     checked(plain_work[2], against=2 * depth + 1)],
    [text("{segments} checkpointed segments of {segment}", segments=given(segments), segment=given(segment)),
     measure.activations(saved.kept_arrays, segments - 1),
     measure.activations(saved.peak_arrays, segments + segment + 2),
     checked(saved.forward_evaluations, against=depth), checked(saved.backward_evaluations, against=depth),
     checked(saved_work[0], against=segments + 1), checked(saved_work[1], against=2 * depth),
     checked(saved_work[2], against=segments + 1 + 2 * depth)],
]
print(md_table(
    ["chain", "kept between the passes (activations)", "peak in the backward pass (activations)",
     "layers run forward", "layers run backward", "primitives traced forward",
     "primitives traced backward", "VJP calls"],
    rows, align=["left"] + ["right"] * 7,
))
print(text(
    "\nBoth give the same gradient, bit for bit, which equals the chain rule applied by hand "
    "to `rtol` = {rtol:g}. Checkpointing keeps {kept_ratio:.1f} times fewer activations between "
    "the passes and lowers the backward pass's peak {peak_ratio:.1f} times; the price is "
    "{extra} more layer evaluations, one more forward pass in all.",
    rtol=given(1e-12),
    kept_ratio=checked(rows[0][1].value / rows[1][1].value, against=(depth - 1) / (segments - 1)),
    peak_ratio=checked(rows[0][2].value / rows[1][2].value, against=(depth + 2) / (segments + segment + 2)),
    extra=checked(saved.backward_evaluations, against=depth),
))
