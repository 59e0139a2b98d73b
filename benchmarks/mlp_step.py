"""Time one training step (forward + backward) of the makemore MLP, five ways, in one run.

    .venv/bin/python benchmarks/mlp_step.py            # what `make bench` runs
    .venv/bin/python benchmarks/mlp_step.py --quick    # fewer repeats, for a smoke test

First every implementation's loss and gradients are checked against the hand-written NumPy step
(relative max-norm error <= 1e-10, float64 everywhere; the hand-written step is itself spot-checked
against central finite differences). Any disagreement aborts before a single timing is taken.
Then the script prints, as Markdown tables: microseconds per step (median over interleaved rounds,
after warm-up) and the ratio to the hand-written step, for two settings; and the per-primitive
tracing overhead measured on a chain of cheap elementwise ops. See benchmarks/README.md.
"""

from __future__ import annotations

import os

# BLAS and OpenMP read these once, when numpy / torch are first imported, so they come first:
# every column then runs on one thread and the ratios compare engines, not core counts.
for _thread_var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ[_thread_var] = "1"
# JAX's CPU backend (XLA) reads its thread settings from XLA_FLAGS when it is first imported.
os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
).strip()

import argparse  # noqa: E402
import importlib  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from types import ModuleType  # noqa: E402

import mlp_handwritten  # noqa: E402
import mlp_jax  # noqa: E402
import mlp_minimal_engine  # noqa: E402
import mlp_unfused  # noqa: E402
import numpy as np  # noqa: E402
from mlp_model import (  # noqa: E402
    PARAM_NAMES,
    Config,
    flatten,
    make_batch,
    make_flat_loss,
    make_loss,
    make_params,
    param_shapes,
)

CONFIGS = (Config(batch_size=32, n_hidden=64), Config(batch_size=1024, n_hidden=256))
GRAD_RTOL = 1e-10
FINITE_DIFF_RTOL = 1e-6
HAND = "hand-written NumPy"
UNFUSED = "NumPy, same graph, one VJP per node, no engine"
MINIMAL = "minimal engine of the prescribed structure"
AD_CORE = "ad_core"
STAGED = "ad_core staged (ad_core.stage, steady state)"
AUTOGRAD = "HIPS/autograd 1.9.1"
TORCH = "PyTorch eager"

# Targets from the engine issue: (setting index, bound on ad_core / hand-written).
RATIO_TARGETS = ((0, 2.0), (1, 1.2))
# Targets from the staging issue, for the staged column.
STAGED_TARGETS = ((0, 1.3), (1, 1.0))

Step = Callable[[], tuple[float, list[np.ndarray]]]


class BenchmarkError(RuntimeError):
    """Raised when implementations disagree; timings of wrong code are worthless."""


@dataclass
class Engines:
    """The wrapped-NumPy engines and torch, or the reason each one is missing."""

    ad_core: tuple[Callable, ModuleType] | None
    autograd: tuple[Callable, ModuleType] | None
    torch: ModuleType | None
    torch_note: str
    staged: bool = True
    jax: ModuleType | None = None
    jax_note: str = "skipped on request"


def load_engines(skip: set[str]) -> Engines:
    """Import ad_core and autograd (both required unless skipped) and torch (optional)."""

    def wrapped(package: str) -> tuple[Callable, ModuleType] | None:
        if package in skip:
            return None
        core = importlib.import_module(package)
        return core.value_and_grad, importlib.import_module(f"{package}.numpy")

    torch_module = None
    torch_note = "skipped on request"
    if "torch" not in skip:
        try:
            torch_module = importlib.import_module("torch")
        except ImportError as error:
            torch_note = f"not importable ({error}); `pip install torch==2.13.0` adds the column"
        else:
            # Intra-op threads are the ones that matter; inter-op pools are idle in eager mode.
            torch_module.set_num_threads(1)
            torch_note = f"torch {torch_module.__version__}, float64, set_num_threads(1)"
    engines = Engines(wrapped("ad_core"), wrapped("autograd"), torch_module, torch_note)
    engines.staged = "staged" not in skip and engines.ad_core is not None
    if "jax" not in skip:
        engines.jax, engines.jax_note = mlp_jax.load()
    return engines


def accepts_param_list(engine: tuple[Callable, ModuleType]) -> bool:
    """Whether the engine's value_and_grad differentiates with respect to a list of arrays."""
    value_and_grad, anp = engine
    try:
        value_and_grad(lambda arrays: anp.sum(arrays[0] * arrays[1]))([np.ones(2), np.ones(2)])
    except TypeError:
        return False
    return True


def choose_param_form(engines: Engines, requested: str) -> str:
    """'list' when every engine takes a list of arrays, else 'flat' for both, to keep one model."""
    if requested != "auto":
        return requested
    wrapped = [engine for engine in (engines.ad_core, engines.autograd) if engine is not None]
    return "list" if all(accepts_param_list(engine) for engine in wrapped) else "flat"


def build_steps(engines: Engines, config: Config, param_form: str) -> dict[str, Step]:
    """One zero-argument step per implementation, all on the same parameters and batch."""
    params = make_params(config)
    windows, targets = make_batch(config)
    steps: dict[str, Step] = {
        HAND: lambda: mlp_handwritten.loss_and_grads(params, windows, targets),
        UNFUSED: lambda: mlp_unfused.loss_and_grads(params, windows, targets),
        MINIMAL: mlp_minimal_engine.make_step(params, windows, targets),
    }
    shapes = param_shapes(config)
    theta = flatten(params)
    for name, engine in ((AD_CORE, engines.ad_core), (AUTOGRAD, engines.autograd)):
        if engine is None:
            continue
        value_and_grad, anp = engine
        # Bound once outside the timed loop, as a training loop would do.
        if param_form == "list":
            list_loss_and_grads = value_and_grad(make_loss(anp))

            def engine_step(loss_and_grads: Callable = list_loss_and_grads) -> tuple[float, list]:
                loss, grads = loss_and_grads(params, windows, targets)
                return loss, list(grads)

        else:
            flat_loss_and_grad = value_and_grad(make_flat_loss(anp, config))

            def engine_step(loss_and_grad: Callable = flat_loss_and_grad) -> tuple[float, list]:
                loss, flat_grad = loss_and_grad(theta, windows, targets)
                # Splitting the vector is free (views), so it stays inside the timed step.
                return loss, unflatten_numpy(flat_grad, shapes)

        steps[name] = engine_step
    if engines.staged and param_form == "list":
        import ad_core

        staged = ad_core.stage(ad_core.value_and_grad(make_loss(engines.ad_core[1])))

        def staged_step() -> tuple[float, list]:
            loss, grads = staged(params, windows, targets)
            return loss, grads

        steps[STAGED] = staged_step
    if engines.torch is not None:
        import mlp_torch

        steps[TORCH] = mlp_torch.make_step(params, windows, targets)
    if engines.jax is not None:
        steps.update(mlp_jax.make_steps(engines.jax, params, windows, targets))
    return steps


def staging_cost(engines: Engines, config: Config, repeats: int) -> dict[str, float]:
    """The one-time cost of ad_core.stage: trace, optimise and compile, on a fresh function each
    time (best of `repeats`, in seconds), and the program's size before and after the passes."""
    import ad_core

    params = make_params(config)
    windows, targets = make_batch(config)
    loss = make_loss(engines.ad_core[1])
    best = float("inf")
    for _ in range(repeats):
        staged = ad_core.stage(ad_core.value_and_grad(loss))
        start = time.perf_counter()
        staged.program(params, windows, targets)
        best = min(best, time.perf_counter() - start)
    program = staged.program(params, windows, targets)
    return {
        "seconds": best,
        "raw_calls": staged.raw_program(params, windows, targets).n_calls,
        "calls": program.n_calls,
        "peak_bytes": program.peak_bytes,
        "peak_bytes_without_freeing": program.peak_bytes_without_freeing,
    }


def unflatten_numpy(theta: np.ndarray, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    sizes = [int(np.prod(shape)) for shape in shapes]
    pieces = np.split(theta, np.cumsum(sizes)[:-1])
    return [piece.reshape(shape) for piece, shape in zip(pieces, shapes, strict=True)]


def relative_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """Max-norm error relative to the max-norm of the reference.

    Normwise rather than elementwise: an entry that is zero up to rounding (a gradient whose
    exact value is tiny) has no meaningful elementwise relative error.
    """
    actual = np.asarray(actual, dtype=np.float64)
    if actual.shape != expected.shape:
        raise BenchmarkError(f"shape {actual.shape} != reference shape {expected.shape}")
    scale = float(np.max(np.abs(expected)))
    return float(np.max(np.abs(actual - expected))) / (scale if scale > 0 else 1.0)


def finite_difference_check(config: Config, probes_per_param: int = 3) -> float:
    """Spot-check the hand-written gradient with central differences; return the worst error."""
    params = make_params(config)
    windows, targets = make_batch(config)
    _, grads = mlp_handwritten.loss_and_grads(params, windows, targets)
    rng = np.random.default_rng(11)
    step_size = 1e-6
    worst = 0.0
    for name, param, grad in zip(PARAM_NAMES, params, grads, strict=True):
        # Probe the embedding rows the batch actually uses: other rows have gradient zero.
        candidates = np.unique(windows) * param.shape[1] if name == "C" else np.arange(param.size)
        for flat_index in rng.choice(candidates, size=probes_per_param, replace=False):
            index = np.unravel_index(flat_index, param.shape)
            original = param[index]
            param[index] = original + step_size
            loss_plus, _ = mlp_handwritten.loss_and_grads(params, windows, targets)
            param[index] = original - step_size
            loss_minus, _ = mlp_handwritten.loss_and_grads(params, windows, targets)
            param[index] = original
            estimate = (loss_plus - loss_minus) / (2 * step_size)
            error = abs(estimate - grad[index]) / max(abs(grad[index]), 1e-3)
            worst = max(worst, error)
            if error > FINITE_DIFF_RTOL:
                raise BenchmarkError(
                    f"hand-written d{name}{index} = {grad[index]!r} but central difference"
                    f" gives {estimate!r} ({config.label})"
                )
    return worst


def check_agreement(steps: dict[str, Step], config: Config) -> dict[str, float]:
    """Compare loss and every gradient with the hand-written step; raise on any mismatch."""
    reference_loss, reference_grads = steps[HAND]()
    worst_by_name: dict[str, float] = {}
    for name, step in steps.items():
        if name == HAND:
            continue
        loss, grads = step()
        grads = list(grads)
        if len(grads) != len(reference_grads):
            raise BenchmarkError(f"{name}: {len(grads)} gradients, expected {len(PARAM_NAMES)}")
        errors = {"loss": abs(float(loss) - reference_loss) / abs(reference_loss)}
        for param_name, grad, reference in zip(PARAM_NAMES, grads, reference_grads, strict=True):
            errors[f"d{param_name}"] = relative_error(grad, reference)
        bad = {key: value for key, value in errors.items() if not value <= GRAD_RTOL}
        if bad:
            details = ", ".join(f"{key}: {value:.3e}" for key, value in bad.items())
            raise BenchmarkError(
                f"{name} disagrees with {HAND} at {config.label} (relative error > {GRAD_RTOL:g}): {details}"
            )
        worst_by_name[name] = max(errors.values())
    return worst_by_name


def time_interleaved(
    calls: dict[str, Callable[[], object]],
    rounds: int,
    block_seconds: float,
    warmup_seconds: float,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds per call for each callable: one sample per round, rounds interleaved.

    Interleaving (and rotating the order every round) spreads slow drifts of the machine, such
    as frequency scaling or a noisy neighbour, evenly over all columns instead of one.
    """
    calls_per_block: dict[str, int] = {}
    for name, call in calls.items():
        call()  # first call: imports, caches, lazy initialisation
        count = 0
        start = clock()
        while (elapsed := clock() - start) < warmup_seconds or count < 3:
            call()
            count += 1
        calls_per_block[name] = max(1, round(block_seconds * count / elapsed))
    samples: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            call, count = calls[name], calls_per_block[name]
            start = clock()
            for _ in range(count):
                call()
            samples[name].append((clock() - start) / count)
    return samples


def spread_percent(samples: list[float]) -> float:
    """Half the interquartile range as a percentage of the median: how much to trust a row."""
    quartiles = statistics.quantiles(samples, n=4)
    return 50.0 * (quartiles[2] - quartiles[0]) / statistics.median(samples)


def sin_chain_calls(engines: Engines, chain_length: int) -> dict[str, Callable[[], object]]:
    """grad of sum(sin(sin(...sin(x)))) on a (4,) array, per engine, plus NumPy baselines."""
    x0 = np.random.default_rng(3).uniform(0.5, 1.5, size=4)

    def numpy_forward() -> float:
        x = x0
        for _ in range(chain_length):
            x = np.sin(x)
        return float(np.sum(x))

    def numpy_forward_backward() -> np.ndarray:
        inputs = []
        x = x0
        for _ in range(chain_length):
            inputs.append(x)
            x = np.sin(x)
        cotangent = np.ones_like(x)
        for x_in in reversed(inputs):
            cotangent = cotangent * np.cos(x_in)
        return cotangent

    calls: dict[str, Callable[[], object]] = {
        "NumPy forward only": numpy_forward,
        "NumPy forward + hand backward": numpy_forward_backward,
    }
    for name, engine in ((AD_CORE, engines.ad_core), (AUTOGRAD, engines.autograd)):
        if engine is None:
            continue
        package = importlib.import_module("ad_core" if name == AD_CORE else "autograd")
        anp = engine[1]

        def chain(x: object, anp: ModuleType = anp) -> object:
            for _ in range(chain_length):
                x = anp.sin(x)
            return anp.sum(x)

        gradient = package.grad(chain)
        calls[f"{name} grad"] = lambda gradient=gradient: gradient(x0)
        if name == AD_CORE and engines.staged:
            staged = package.stage(gradient)
            calls[f"{name} staged grad"] = lambda staged=staged: staged(x0)
    if engines.torch is not None:
        torch = engines.torch
        x0_t = torch.tensor(x0, dtype=torch.float64)

        def torch_grad() -> object:
            x_leaf = x0_t.clone().requires_grad_(True)
            x = x_leaf
            for _ in range(chain_length):
                x = torch.sin(x)
            x.sum().backward()
            return x_leaf.grad

        calls[f"{TORCH} backward()"] = torch_grad
    return calls


def check_chain_gradients(calls: dict[str, Callable[[], object]]) -> None:
    """All sin-chain gradients must match the hand backward before they are timed."""
    reference = np.asarray(calls["NumPy forward + hand backward"]())
    for name, call in calls.items():
        if name.startswith("NumPy"):
            continue
        result = call()
        value = result.numpy() if hasattr(result, "numpy") else np.asarray(result)
        error = relative_error(value, reference)
        if not error <= GRAD_RTOL:
            raise BenchmarkError(f"{name}: sin-chain gradient off by {error:.3e}")


def environment_lines(engines: Engines) -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            cpu = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return [
        f"- CPU: {cpu}; Python {platform.python_version()}; NumPy {np.__version__}",
        "- threads: OMP/OPENBLAS/MKL/VECLIB/NUMEXPR_NUM_THREADS=1 set before importing NumPy;"
        f" PyTorch: {engines.torch_note}",
        f"- JAX: {engines.jax_note}",
        "- everything float64; garbage collector left on, as in a training loop",
    ]


def format_step_table(
    results: dict[str, dict[str, list[float]]], checks: dict[str, dict[str, float]]
) -> list[str]:
    labels = list(results)
    header = "| implementation | " + " | ".join(f"{label}: µs/step | x hand | spread" for label in labels)
    lines = [header + " | max rel. error |", "|---" * (3 * len(labels) + 2) + "|"]
    names = list(next(iter(results.values())))
    for name in names:
        cells = []
        for label in labels:
            median = statistics.median(results[label][name])
            hand = statistics.median(results[label][HAND])
            cells += [f"{median * 1e6:,.0f}", f"{median / hand:.2f}x"]
            cells.append(f"±{spread_percent(results[label][name]):.0f}%")
        worst = max(checks[label].get(name, 0.0) for label in labels)
        error_cell = "reference" if name == HAND else f"{worst:.1e}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {error_cell} |")
    return lines


def target_lines(results: dict[str, dict[str, list[float]]]) -> list[str]:
    labels = list(results)
    lines = []

    def median(label: str, name: str) -> float:
        return statistics.median(results[label][name])

    for config_index, bound in RATIO_TARGETS:
        label = labels[config_index] if config_index < len(labels) else None
        if label is None or AD_CORE not in results[label]:
            continue
        ratio = median(label, AD_CORE) / median(label, HAND)
        verdict = "met" if ratio <= bound else "NOT met"
        lines.append(f"- ad_core ≤ {bound}x hand-written at {label}: {verdict} ({ratio:.2f}x)")
    first = labels[0]
    if AD_CORE in results[first]:
        for rival in (AUTOGRAD, TORCH):
            if rival not in results[first]:
                lines.append(f"- ad_core faster than {rival} at {first}: not measured")
                continue
            speedup = median(first, rival) / median(first, AD_CORE)
            # Rounds are interleaved, so round-by-round wins show whether the margin is noise.
            pairs = list(zip(results[first][AD_CORE], results[first][rival], strict=True))
            wins = sum(ours < theirs for ours, theirs in pairs)
            paired = statistics.median(theirs / ours for ours, theirs in pairs)
            verdict = "met" if speedup > 1.0 else "NOT met"
            lines.append(
                f"- ad_core faster than {rival} at {first}: {verdict} ({speedup:.2f}x as fast;"
                f" round by round: median {paired:.2f}x, faster in {wins} of {len(pairs)} rounds)"
            )
    for label in labels:
        if AD_CORE in results[label]:
            engine_only = median(label, AD_CORE) / median(label, UNFUSED)
            lines.append(
                f"- for reference, ad_core / no-engine row at {label}: {engine_only:.2f}x (the"
                " engine's own overhead, with the model's extra arithmetic factored out)"
            )
    if MINIMAL in results[first]:
        floor = median(first, MINIMAL) / median(first, HAND)
        lines.append(
            f"- the minimal engine of the prescribed structure at {first}: {floor:.2f}x hand-written,"
            " the cost of boxes, nodes, curried VJP makers and a toposort with nothing else around them"
        )
    for config_index, bound in STAGED_TARGETS:
        label = labels[config_index] if config_index < len(labels) else None
        if label is None or STAGED not in results[label]:
            continue
        ratio = median(label, STAGED) / median(label, HAND)
        pairs = list(zip(results[label][STAGED], results[label][HAND], strict=True))
        paired = statistics.median(ours / hand for ours, hand in pairs)
        verdict = "met" if ratio <= bound else "NOT met"
        lines.append(
            f"- ad_core staged ≤ {bound}x hand-written at {label}: {verdict} ({ratio:.2f}x;"
            f" round by round: median {paired:.2f}x)"
        )
    return lines


def format_staging_table(costs: dict[str, dict[str, float]]) -> list[str]:
    lines = [
        "| setting | staging (trace + passes + compile), ms | primitive calls traced"
        " | after the passes | peak live bytes | without freeing |",
        "|---|---|---|---|---|---|",
    ]
    for label, cost in costs.items():
        lines.append(
            f"| {label} | {cost['seconds'] * 1e3:.1f} | {cost['raw_calls']} | {cost['calls']}"
            f" | {cost['peak_bytes']:,} | {cost['peak_bytes_without_freeing']:,} |"
        )
    return lines


def format_overhead_table(
    short: dict[str, list[float]], long: dict[str, list[float]], extra_ops: int
) -> list[str]:
    """Per-op cost is the slope between two chain lengths, so fixed per-call costs cancel."""
    per_op = {
        name: (statistics.median(long[name]) - statistics.median(short[name])) / extra_ops for name in short
    }
    baseline = per_op["NumPy forward + hand backward"]
    lines = [
        "| what | µs per sin op | overhead per primitive vs NumPy forward + hand backward |",
        "|---|---|---|",
    ]
    for name, cost in per_op.items():
        overhead = "—" if name.startswith("NumPy") else f"{(cost - baseline) * 1e6:.2f} µs"
        lines.append(f"| {name} | {cost * 1e6:.2f} | {overhead} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41, help="timed rounds per column")
    parser.add_argument("--block-ms", type=float, default=25.0, help="length of one round")
    parser.add_argument("--quick", action="store_true", help="7 rounds of 5 ms: a smoke test")
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall: time.perf_counter; cpu: time.process_time, the CPU time of this process, which"
        " leaves out the time other processes hold the core (on a shared machine)",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=["ad_core", "autograd", "torch", "staged", "jax"],
        help="leave an implementation out (repeatable)",
    )
    parser.add_argument(
        "--params",
        choices=["auto", "list", "flat"],
        default="auto",
        help="differentiate w.r.t. a list of arrays, or one flat vector sliced inside the loss"
        " (auto: list if every engine accepts it)",
    )
    args = parser.parse_args(argv)
    if args.rounds < 3:
        parser.error("--rounds must be at least 3: the spread column needs quartiles")
    rounds, block_seconds = (7, 0.005) if args.quick else (args.rounds, args.block_ms / 1e3)
    clock, clock_name = {
        "wall": (time.perf_counter, "wall-clock time (time.perf_counter)"),
        "cpu": (time.process_time, "CPU time of the process (time.process_time, --clock cpu)"),
    }[args.clock]
    warmup_seconds = 0.05 if args.quick else 0.3

    engines = load_engines(set(args.skip))
    out = ["# makemore MLP: one training step (forward + backward)", ""]
    out += environment_lines(engines)
    if engines.ad_core is None:
        out.append("- ad_core column skipped on request (--skip ad_core)")
    param_form = choose_param_form(engines, args.params)
    if param_form == "list":
        out.append("- ad_core and autograd: value_and_grad with respect to the list of 6 arrays")
    else:
        out.append(
            "- ad_core and autograd: value_and_grad with respect to ONE flat parameter vector,"
            " sliced and reshaped into the 6 arrays inside the loss (12 extra primitives),"
            " because ad_core's grad does not take a list of arrays"
            if args.params == "auto"
            else "- ad_core and autograd: flat parameter vector (--params flat)"
        )

    results: dict[str, dict[str, list[float]]] = {}
    checks: dict[str, dict[str, float]] = {}
    steps_by_label: dict[str, dict[str, Step]] = {}
    fd_errors = []
    # Every check passes before any timing starts: a failure costs seconds, not minutes.
    for config in CONFIGS:
        fd_errors.append(finite_difference_check(config))
        steps_by_label[config.label] = build_steps(engines, config, param_form)
        checks[config.label] = check_agreement(steps_by_label[config.label], config)
    chain_short, chain_long = 16, 256
    short_calls = sin_chain_calls(engines, chain_short)
    long_calls = sin_chain_calls(engines, chain_long)
    check_chain_gradients(short_calls)
    check_chain_gradients(long_calls)
    out.append(
        f"- gradients checked first: every implementation within {GRAD_RTOL:g} (relative,"
        f" max-norm) of the hand-written step; hand-written step within"
        f" {max(fd_errors):.1e} of central differences"
    )

    costs = {}
    if engines.staged and param_form == "list":
        for config in CONFIGS:
            costs[config.label] = staging_cost(engines, config, repeats=3 if args.quick else 7)
    for config in CONFIGS:
        results[config.label] = time_interleaved(
            steps_by_label[config.label], rounds, block_seconds, warmup_seconds, clock
        )
    short_times = time_interleaved(short_calls, rounds, block_seconds, warmup_seconds, clock)
    long_times = time_interleaved(long_calls, rounds, block_seconds, warmup_seconds, clock)

    out += [
        f"- timing: median of {rounds} interleaved rounds of ~{block_seconds * 1e3:g} ms each,"
        f" after warm-up, {clock_name}; spread = half the interquartile range",
        "",
        "## Step time",
        "",
        *format_step_table(results, checks),
        "",
        "## Targets",
        "",
        *target_lines(results),
        "",
        *(["## One-time staging cost (ad_core.stage of value_and_grad, best of several)", "",
           *format_staging_table(costs), ""] if costs else []),
        f"## Tracing overhead (grad of a chain of sin ops on a (4,) array, slope between "
        f"{chain_short} and {chain_long} ops)",
        "",
        *format_overhead_table(short_times, long_times, chain_long - chain_short),
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchmarkError as error:
        print(f"\nBENCHMARK ABORTED: {error}", file=sys.stderr)
        sys.exit(1)
