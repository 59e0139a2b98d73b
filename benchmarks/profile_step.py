"""Where does an engine spend the makemore MLP step? A split timing and a cProfile listing.

    .venv/bin/python benchmarks/profile_step.py                    # ad_core, batch 32
    .venv/bin/python benchmarks/profile_step.py --engine autograd --batch 1024 --hidden 256

The split compares, on one thread and in one run:
  - the plain NumPy forward (the same model code run with `numpy` as `anp`),
  - tracing: make_vjp alone (forward values + boxes + nodes + VJP closures),
  - the backward pass alone (calling the vjp on an already traced graph),
  - the hand-written step (forward + fused backward) as the yardstick.
Then cProfile over many steps, sorted by own time, shows which engine functions dominate.
"""

from __future__ import annotations

import os

for _thread_var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_thread_var] = "1"

import argparse  # noqa: E402
import cProfile  # noqa: E402
import importlib  # noqa: E402
import io  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import mlp_handwritten  # noqa: E402
import numpy as np  # noqa: E402
from mlp_model import (  # noqa: E402
    Config,
    flatten,
    make_batch,
    make_flat_loss,
    make_loss,
    make_params,
)


def best_seconds(call: Callable[[], object], repeats: int = 31, block_seconds: float = 0.02) -> float:
    """Fastest seconds per call over `repeats` blocks of about `block_seconds` each.

    The minimum, not the median: this tool compares parts of one engine on a shared machine,
    and other processes only ever add time.
    """
    call()
    start, count = time.perf_counter(), 0
    while time.perf_counter() - start < 0.2:
        call()
        count += 1
    per_block = max(1, round(block_seconds * count / (time.perf_counter() - start)))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(per_block):
            call()
        samples.append((time.perf_counter() - start) / per_block)
    return min(samples)


def node_vjps(node: object) -> list[Callable]:
    """The node's VJP callables, built in the forward pass."""
    return list(node.vjps)


def per_node_backward_table(
    loss: Callable, argument: object, windows: np.ndarray, targets: np.ndarray
) -> str:
    """Time every VJP call of one traced ad_core graph, on the cotangent it really receives.

    Reaches into ad_core internals (trace, toposort, VJPNode.vjps), so it may need updating
    when the engine changes; it prints why instead of failing the whole profile.
    """
    try:
        from ad_core.core import VJPNode
        from ad_core.tracer import toposort, trace

        root = VJPNode.new_root(argument)
        value, end_node = trace(root, lambda x: loss(x, windows, targets), argument)
        order = toposort(end_node)
        incoming = {end_node: np.ones_like(value)}
        calls = []
        for node in order:
            g = incoming.pop(node)
            if hasattr(g, "materialize"):
                g = g.materialize()
            for parent, argnum, vjp in zip(node.parents, node.parent_argnums, node_vjps(node), strict=True):
                contribution = vjp(g)
                previous = incoming.get(parent)
                incoming[parent] = contribution if previous is None else previous + contribution
                name = "root" if node.fun is None else node.fun.__name__
                calls.append((name, argnum, np.shape(g), vjp, g))
    except Exception as error:
        return f"\n(per-node table unavailable: {type(error).__name__}: {error})\n"

    rows = []
    for name, argnum, shape, vjp, g in calls:
        seconds = best_seconds(lambda vjp=vjp, g=g: vjp(g), repeats=7, block_seconds=0.003)
        rows.append((seconds, name, argnum, shape))
    total = sum(row[0] for row in rows)
    lines = [
        f"\n## ad_core backward, per VJP call ({len(order)} nodes, {len(rows)} VJP calls,"
        f" sum {total * 1e6:,.1f} µs), slowest first\n",
        "| µs | share | primitive | argnum | cotangent shape |",
        "|---|---|---|---|---|",
    ]
    for seconds, name, argnum, shape in sorted(rows, key=lambda row: -row[0]):
        lines.append(f"| {seconds * 1e6:.2f} | {100 * seconds / total:.0f}% | {name} | {argnum} | {shape} |")
    by_primitive: dict[str, float] = {}
    for seconds, name, _, _ in rows:
        by_primitive[name] = by_primitive.get(name, 0.0) + seconds
    lines += ["", "| primitive | µs, all its VJP calls |", "|---|---|"]
    for name, seconds in sorted(by_primitive.items(), key=lambda item: -item[1]):
        lines.append(f"| {name} | {seconds * 1e6:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="ad_core", choices=["ad_core", "autograd"])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--params", default="auto", choices=["auto", "list", "flat"])
    parser.add_argument("--steps", type=int, default=2000, help="steps under cProfile")
    parser.add_argument("--top", type=int, default=30, help="rows of the cProfile listing")
    args = parser.parse_args(argv)

    engine = importlib.import_module(args.engine)
    anp = importlib.import_module(f"{args.engine}.numpy")
    config = Config(batch_size=args.batch, n_hidden=args.hidden)
    params = make_params(config)
    windows, targets = make_batch(config)

    form = args.params
    if form == "auto":
        try:
            engine.grad(lambda arrays: anp.sum(arrays[0]))([np.ones(2)])
            form = "list"
        except TypeError:
            form = "flat"
    if form == "list":
        loss, argument = make_loss(anp), params
    else:
        loss, argument = make_flat_loss(anp, config), flatten(params)
    numpy_loss = make_loss(np)

    def trace_only() -> tuple:
        return engine.make_vjp(loss)(argument, windows, targets)

    vjp, value = trace_only()
    cotangent = np.ones_like(value)
    value_and_grad = engine.value_and_grad(loss)

    timings = {
        "plain NumPy forward (same model code)": best_seconds(lambda: numpy_loss(params, windows, targets)),
        f"{args.engine}: trace only (make_vjp)": best_seconds(trace_only),
        f"{args.engine}: backward only (vjp of a traced graph)": best_seconds(lambda: vjp(cotangent)),
        f"{args.engine}: value_and_grad": best_seconds(lambda: value_and_grad(argument, windows, targets)),
        "hand-written forward + backward": best_seconds(
            lambda: mlp_handwritten.loss_and_grads(params, windows, targets)
        ),
    }
    print(f"## {args.engine}, {config.label}, parameters as {form}\n")
    print("| part | µs (best block) |\n|---|---|")
    for name, seconds in timings.items():
        print(f"| {name} | {seconds * 1e6:,.1f} |")

    if args.engine == "ad_core":
        print(per_node_backward_table(loss, argument, windows, targets))

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.steps):
        value_and_grad(argument, windows, targets)
    profiler.disable()
    listing = io.StringIO()
    stats = pstats.Stats(profiler, stream=listing)
    stats.sort_stats("tottime").print_stats(args.top)
    print(f"\n## cProfile, {args.steps} steps, sorted by own time (µs per step = tottime / steps)")
    print("```")
    print(listing.getvalue().strip())
    print("```")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
