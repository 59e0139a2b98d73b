"""What tracing adds to each primitive of the makemore MLP, op by op, at batch 32.

    .venv/bin/python benchmarks/op_overhead.py

For every kind of operation the model's forward pass runs, the script times the plain NumPy
call and the same call on boxed arguments inside a trace (which also builds the node and its
VJP closures), and prints the difference. Shapes are the model's at batch 32, n_hidden 64.
The sum of the last column, weighted by how often the model runs each op, is most of the gap
between `ad_core: trace only` and `plain NumPy forward` in `profile_step.py`.
"""

from __future__ import annotations

import os

for _thread_var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_thread_var] = "1"

import timeit  # noqa: E402

import numpy as np  # noqa: E402

import ad_core.numpy as anp  # noqa: E402
from ad_core.core import VJPNode  # noqa: E402
from ad_core.numpy.array_box import ArrayBox  # noqa: E402
from ad_core.tracer import trace_stack  # noqa: E402

# (label, how often the model runs it per step, plain NumPy statement, traced statement)
OPS = [
    ("h * row (two boxes)", 1, "h * row", "bh * brow"),
    ("h - row", 3, "h - row", "bh - brow"),
    ("h / row", 1, "h / row", "bh / brow"),
    ("h + row", 3, "h + row", "bh + brow"),
    ("tanh(h)", 1, "np.tanh(h)", "anp.tanh(bh)"),
    ("dot(h, w)", 2, "np.dot(h, w)", "anp.dot(bh, bw)"),
    ("mean(h, axis=0, keepdims)", 1, "np.mean(h, axis=0, keepdims=True)",
     "anp.mean(bh, axis=0, keepdims=True)"),
    ("var(h, axis=0, ddof=1, keepdims)", 1, "np.var(h, axis=0, ddof=1, keepdims=True)",
     "anp.var(bh, axis=0, ddof=1, keepdims=True)"),
    ("max(h, axis=1, keepdims)", 1, "np.max(h, axis=1, keepdims=True)", "anp.max(bh, axis=1, keepdims=True)"),
    ("C[windows]", 2, "C[windows]", "bC[windows]"),
    ("reshape", 1, "h.reshape(32, -1)", "anp.reshape(bh, (32, -1))"),
    ("sqrt(row)", 1, "np.sqrt(row)", "anp.sqrt(brow)"),
]


def best_microseconds(statement: str, namespace: dict, number: int = 20000) -> float:
    return min(timeit.repeat(statement, globals=namespace, number=number, repeat=7)) / number * 1e6


def main() -> None:
    rng = np.random.default_rng(0)
    h, w, row = rng.random((32, 64)), rng.random((64, 27)), rng.random((1, 64))
    C, windows = rng.random((27, 10)), rng.integers(0, 27, (32, 3))

    def box(value: np.ndarray) -> ArrayBox:
        return ArrayBox(value, 0, VJPNode.new_root(value))

    namespace = {
        "np": np, "anp": anp, "h": h, "w": w, "row": row, "C": C, "windows": windows,
        "bh": box(h), "bw": box(w), "brow": box(row), "bC": box(C),
    }
    print("| op | per step | NumPy µs | traced µs | added µs |")
    print("|---|---|---|---|---|")
    weighted = 0.0
    with trace_stack.new_trace():  # boxes of level 0 belong to this trace
        for label, count, plain, traced in OPS:
            raw, boxed = best_microseconds(plain, namespace), best_microseconds(traced, namespace)
            weighted += count * (boxed - raw)
            print(f"| `{label}` | {count} | {raw:.2f} | {boxed:.2f} | {boxed - raw:.2f} |")
    print(f"\nAdded per forward pass, weighted by the counts above: {weighted:.0f} µs "
          "(the model's other ops, the six parameter reads and the scalar loss add a little more).")


if __name__ == "__main__":
    main()
