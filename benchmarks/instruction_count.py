"""Instructions per makemore step, counted by valgrind: a timing that noise cannot move.

    .venv/bin/python benchmarks/instruction_count.py                 # batch 32, all columns
    .venv/bin/python benchmarks/instruction_count.py --batch 1024 --hidden 256 --steps 4

On a shared machine wall-clock medians can swing by tens of percent; executed instructions
do not. Each implementation runs twice under `valgrind --tool=cachegrind --cache-sim=no`, once
with 0 steps and once with N (after the same warm-up), and the difference divided by N is the
cost of one step: imports and set-up cancel out. Instructions are not time: NumPy kernels
retire more instructions per cycle than the Python interpreter, and page faults and cache
misses cost time without instructions, so use this to compare versions of one engine, and
mlp_step.py for the real ratios. Needs `valgrind` on PATH; about a minute at batch 32.
"""

from __future__ import annotations

import os

for _thread_var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_thread_var] = "1"

import argparse  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

IMPLEMENTATIONS = ("hand", "floor", "minimal", "ad_core", "autograd")
LABELS = {
    "hand": "hand-written NumPy",
    "floor": "NumPy, same graph, one VJP per node, no engine",
    "minimal": "minimal engine of the prescribed structure",
    "ad_core": "ad_core",
    "autograd": "HIPS/autograd 1.9.1",
}


def make_step(name: str, batch_size: int, n_hidden: int) -> Callable[[], object]:
    """The zero-argument step of one implementation (imports happen here, in the child)."""
    from mlp_model import Config, make_batch, make_loss, make_params

    config = Config(batch_size=batch_size, n_hidden=n_hidden)
    params = make_params(config)
    windows, targets = make_batch(config)
    if name == "hand":
        import mlp_handwritten

        return lambda: mlp_handwritten.loss_and_grads(params, windows, targets)
    if name == "floor":
        import mlp_unfused

        return lambda: mlp_unfused.loss_and_grads(params, windows, targets)
    if name == "minimal":
        import mlp_minimal_engine

        return mlp_minimal_engine.make_step(params, windows, targets)
    import importlib

    engine = importlib.import_module(name)
    loss_and_grads = engine.value_and_grad(make_loss(importlib.import_module(f"{name}.numpy")))
    return lambda: loss_and_grads(params, windows, targets)


def run_child(name: str, batch_size: int, n_hidden: int, steps: int) -> None:
    step = make_step(name, batch_size, n_hidden)
    for _ in range(2 + steps):  # two warm-up steps in both runs, so they cancel
        step()


def count_instructions(name: str, batch_size: int, n_hidden: int, steps: int) -> int:
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        name,
        "--batch",
        str(batch_size),
        "--hidden",
        str(n_hidden),
        "--steps",
        str(steps),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    match = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
    if result.returncode != 0 or match is None:
        raise RuntimeError(f"valgrind run of {name} failed:\n{result.stderr[-2000:]}")
    return int(match.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--steps", type=int, default=40, help="steps in the counted run")
    parser.add_argument("--only", action="append", choices=IMPLEMENTATIONS, help="repeatable")
    parser.add_argument("--child", choices=IMPLEMENTATIONS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        run_child(args.child, args.batch, args.hidden, args.steps)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH (apt-get install valgrind)", file=sys.stderr)
        return 1
    names = args.only or list(IMPLEMENTATIONS)
    jobs = [(name, steps) for name in names for steps in (0, args.steps)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        counts = list(pool.map(lambda job: count_instructions(job[0], args.batch, args.hidden, job[1]), jobs))
    per_step = {
        name: (counts[2 * index + 1] - counts[2 * index]) / args.steps for index, name in enumerate(names)
    }
    print(f"## Instructions per step, batch {args.batch}, n_hidden {args.hidden}\n")
    print("| implementation | instructions per step | x hand |\n|---|---|---|")
    reference = per_step.get("hand")
    for name, count in per_step.items():
        ratio = f"{count / reference:.2f}x" if reference else "-"
        print(f"| {LABELS[name]} | {count:,.0f} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
