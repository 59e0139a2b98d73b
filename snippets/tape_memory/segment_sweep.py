"""Segments of every size for a chain of 64 layers: memory kept, the backward pass's peak, and
the formulas behind them; the best segment length is the square root of the depth."""

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bookkit import checked, given, load_snippet_module, md_table, svg_figure, text

measure = load_snippet_module(Path(__file__).with_name("_measure.py"))
x = measure.start_point()
depth = 64
plain = measure.measure(measure.chain(depth), x)
lengths = [k for k in range(1, depth + 1) if depth % k == 0]


def predicted_peak(segments, k):
    """Kept segment inputs but x, the recomputed segment's inputs but its first, the segment's
    incoming cotangent, and a rule's three arrays. The last segment's incoming cotangent is the
    sum's, a broadcast view of the scalar seed that owns no memory, so one segment alone peaks
    one lower."""
    return (segments - 1) + (k - 1) + (1 if segments > 1 else 0) + 3


rows, peaks = [], []
for k in lengths:
    segments = depth // k
    run = measure.measure(measure.checkpointed_chain(depth, k), x)
    peaks.append(measure.whole_activations(run.peak_arrays))
    rows.append([
        given(k), given(segments),
        measure.activations(run.kept_arrays, segments - 1),
        measure.activations(run.peak_arrays, predicted_peak(segments, k)),
        checked(run.forward_evaluations + run.backward_evaluations, against=2 * depth),
    ])
print(md_table(
    ["segment length $k$", "segments $N/k$", "kept between the passes", "peak in the backward pass",
     "layer evaluations"],
    rows, align=["right"] * 5,
))
best = lengths[peaks.index(min(peaks))]
print(text(
    "\nThe peak is smallest at $k$ = {best}, the square root of {depth}, where it is "
    "{best_peak} activations against {plain_peak} for the plain tape. Every segment "
    "length costs the same {evaluations} layer evaluations: each layer runs once forward and "
    "once more when its segment is recomputed.",
    best=checked(best, against=math.isqrt(depth)), depth=given(depth),
    best_peak=checked(min(peaks), against=predicted_peak(depth // math.isqrt(depth), math.isqrt(depth))),
    plain_peak=measure.activations(plain.peak_arrays, depth + 2),
    evaluations=checked(plain.forward_evaluations * 2, against=2 * depth),
))

fig, ax = plt.subplots(figsize=(7.0, 3.6))
ax.plot(lengths, peaks, "o", color="#1565c0", label="measured peak (tracemalloc), whole activations")
ks = [k / 4 for k in range(4, 4 * depth + 1)]
ax.plot(ks, [depth / k + k + 2 for k in ks], "-", color="#90a4ae", lw=1, label="N/k + k + 2")
ax.axhline(measure.whole_activations(plain.peak_arrays), color="#e65100", ls="--", lw=1, label="plain tape")
ax.set_xscale("log", base=2)
ax.set_xlabel("segment length k (layers), N = 64")
ax.set_ylabel("activations alive")
ax.legend(frameon=False)
print(svg_figure(fig, alt="Peak memory of the backward pass against the segment length"))
