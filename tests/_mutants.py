"""The machinery of `tests/test_mutations.py`: find which rules the pages call, break each one
in a forked child, and see whether a page notices.

A *rule* is one (primitive, mode, argnum): the VJP of `anp.tanh` for argument 0, the JVP of
`anp.multiply` for argument 1. The engine looks rules up in exactly two places, both in
`ad_core/core.py`:

- `VJPNode.__init__` calls `fun.vjps[argnum]` (or, for a primitive registered with
  `defvjp_argnum(..., argnums=None)`, the maker that `_fallback_vjp_maker` binds on first use)
  and keeps the resulting `g -> contribution` closures in `node.vjps`;
- `JVPNode.__init__` calls `fun.jvps.get(argnum)` (or `_fallback_jvp`, which binds the
  `defjvp_argnum` / `def_linear` / `jvp_every_argnum` rule on first use) and sums the
  contributions of the arguments.

Both are wrapped from outside, in the forked children only (`install`): after the real
`VJPNode.__init__` has built `node.vjps`, each closure is replaced by one that records the
call and may change its output; around the real `JVPNode.__init__`, `fun.jvps` is swapped for a
view whose rules do the same, and `core._fallback_jvp` wraps the rules it binds. Nothing in
the engine is edited, every way a rule is registered ends up at one of these two points, and
rules reached only through the engine's own machinery (the traced `anp.sum` inside
`unbroadcast` when a gradient is differentiated again, the container primitives that read
a parameter out of a list) are seen like any other.

A mutation is applied to a rule's output, every time that rule is called in the child:
`sign` (negated), `factor` (times 2), `missing-term` (zero: for a JVP, whose node adds one
term per argument, that drops the argument's term of the sum; for a VJP, the argument's
contribution) and `wrong-axis` (rolled by one along the last axis of size > 1 on which the
output is not constant; a rule whose output never has an axis of size > 1 cannot be given
this mutant). A mutant whose change never altered a single output on the pages' inputs (a
rule whose output is always zero, like the VJP of `where`'s condition) is *equivalent* there:
no check on those inputs could see it, so it is reported as not applicable, with that reason.
Only rules of the engine's primitives are mutated: a primitive a snippet defines for itself
(the deliberately wrong `my_cos`, the chapter's own `softplus`) is what that page is about,
not a rule it relies on; those are listed in the summary, not mutated.

The mutated rule stays broken for the whole snippet, so the engine's own uses of it (inside
another rule, at second order) are broken too, as they would be with a wrong rule in
`vjps.py` / `jvps.py`.

Each run is a child forked from the test process after NumPy, the engine, bookkit and
matplotlib are imported (`run_jobs`): one child per (mutant, snippet), so a snippet that
registers its own rules cannot leak them into the next one; a parent that never runs a
snippet, so every child starts clean. A child runs the snippet as `python -m
bookkit.run_snippet` does and reports, over a pipe, whether it raised, what, and which rules
were called.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import importlib
import io
import json
import os
import pickle
import pkgutil
import re
import runpy
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = REPO_ROOT / "docs"
SNIPPETS_DIR = REPO_ROOT / "snippets"

KINDS = ("sign", "factor", "missing-term", "wrong-axis")
MODES = ("VJP", "JVP")

Rule = tuple[str, str, int]  # (primitive, mode, argnum)
Mutant = tuple[str, str, int, str]  # (primitive, mode, argnum, kind)


# ---------------------------------------------------------------------------------------------
# Which snippets the pages include (the same test as tests/snippets/test_all_snippets.py)
# ---------------------------------------------------------------------------------------------

_INCLUDE = re.compile(r"""-{1,}8<-{1,}\s+["']?(snippets/[^"':\s]+\.py)""")


def pages_including() -> dict[str, list[str]]:
    """{snippet path relative to the repository: the pages (relative to docs/) that include it},
    for every snippet file that a page includes and that exists."""
    found: dict[str, set[str]] = {}
    for page in sorted(DOCS.rglob("*.md")):
        for snippet in _INCLUDE.findall(page.read_text(encoding="utf-8")):
            found.setdefault(snippet, set()).add(page.relative_to(DOCS).as_posix())
    return {
        snippet: sorted(pages)
        for snippet, pages in sorted(found.items())
        if (REPO_ROOT / snippet).is_file() and not Path(snippet).name.startswith("_")
    }


# ---------------------------------------------------------------------------------------------
# Names: a primitive is named by where the book reaches it (`anp.tanh`, `anp.linalg.solve`)
# ---------------------------------------------------------------------------------------------

_NAMES: dict[int, str] = {}

_NAMESPACES = {
    "ad_core.numpy": "anp",
    "ad_core.numpy.linalg": "anp.linalg",
    "ad_core.numpy.fft": "anp.fft",
    "ad_core.numpy.random": "anp.random",
    "ad_core.numpy.wrapper": "anp",
    "ad_core.numpy.array_box": "ad_core.numpy.array_box",
    "ad_core.containers": "ad_core.containers",
    "ad_core.builtins": "ad_core.builtins",
}


def _index_names() -> None:
    """Map every primitive the engine defines to its public name (the first namespace that
    holds it wins: `anp.sum` rather than `ad_core.numpy.wrapper.sum`)."""
    for module_name, prefix in _NAMESPACES.items():
        module = importlib.import_module(module_name)
        for name, obj in sorted(vars(module).items()):
            if getattr(obj, "is_primitive", False) and hasattr(obj, "vjps"):
                _NAMES.setdefault(id(obj), f"{prefix}.{name}")
        for name, obj in sorted(vars(module).items()):  # methods of the box classes
            if isinstance(obj, type):
                for attr, value in sorted(vars(obj).items()):
                    if getattr(value, "is_primitive", False) and hasattr(value, "vjps"):
                        _NAMES.setdefault(id(value), f"{prefix}.{name}.{attr}")


def primitive_name(fun: Callable) -> str:
    """The public name of an engine primitive; a primitive made elsewhere (a snippet's own,
    `checkpoint`'s wrapper) by its module and qualified name, which are the same in every run."""
    name = _NAMES.get(id(fun))
    if name is not None:
        return name
    raw = getattr(fun, "fun", fun)
    module = getattr(raw, "__module__", None) or "?"
    if module.startswith("_bookkit_snippet_"):
        module = module.rsplit("_", 1)[0]  # the path digest differs between worktrees
    return f"{module}.{getattr(fun, '__qualname__', getattr(fun, '__name__', repr(fun)))}"


# ---------------------------------------------------------------------------------------------
# Mutations of a rule's output
# ---------------------------------------------------------------------------------------------


class HarnessError(Exception):
    """A mutation could not be applied: the harness failed, not the page."""


@dataclass
class _State:
    called: set = field(default_factory=set)  # rules called in this child
    mutant: Mutant | None = None
    applied: int = 0  # calls of the mutated rule
    changed: int = 0  # calls whose output the mutation changed
    no_axis: int = 0  # wrong-axis: calls whose output has no axis of size > 1
    harness_errors: list = field(default_factory=list)
    mutating: bool = False


STATE = _State()


def _leaf_mutation(kind: str) -> Callable[[Any], Any]:
    from ad_core import numpy as anp
    from ad_core.tracer import Box, getval

    def sign(x):
        return -x

    def factor(x):
        return x * 2.0

    def missing_term(x):
        if isinstance(x, Box):
            return x * 0.0  # stays traced, for a derivative of this derivative
        return np.zeros_like(x) if isinstance(x, np.ndarray) else type(x)(0) * x

    def wrong_axis(x):
        # The last axis of size > 1 along which the output is not constant (rolling along an
        # axis the output is constant on would change nothing: mean's VJP along its axis).
        raw = np.asarray(getval(x))
        axes = [axis for axis, size in enumerate(raw.shape) if size > 1]
        if not axes:
            STATE.no_axis += 1
            return x
        roll = anp.roll if isinstance(x, Box) else np.roll
        for axis in reversed(axes):
            if not np.array_equal(np.roll(raw, 1, axis=axis), raw, equal_nan=raw.dtype.kind in "fc"):
                return roll(x, 1, axis=axis)
        return x

    return {"sign": sign, "factor": factor, "missing-term": missing_term, "wrong-axis": wrong_axis}[kind]


def _map_leaves(x: Any, leaf: Callable[[Any], Any]) -> Any:
    from ad_core.core import SparseCotangent
    from ad_core.tracer import getval

    if x is None:
        return None
    if type(x) is SparseCotangent:
        return SparseCotangent({key: _map_leaves(value, leaf) for key, value in x.parts.items()},
                               x.container)
    if isinstance(x, list | tuple):
        return type(x)(_map_leaves(item, leaf) for item in x)
    if isinstance(x, dict):
        return {key: _map_leaves(value, leaf) for key, value in x.items()}
    raw = getval(x)
    if isinstance(raw, list | tuple | dict):  # a traced container: mutate what it holds
        return _map_leaves(raw, leaf)
    return leaf(x)


def _leaves(x: Any) -> list:
    from ad_core.core import SparseCotangent
    from ad_core.tracer import getval

    x = getval(x)
    if type(x) is SparseCotangent:
        return [leaf for value in x.parts.values() for leaf in _leaves(value)]
    if isinstance(x, list | tuple):
        return [leaf for item in x for leaf in _leaves(item)]
    if isinstance(x, dict):
        return [leaf for value in x.values() for leaf in _leaves(value)]
    return [x]


def _differs(before: Any, after: Any) -> bool:
    a, b = _leaves(before), _leaves(after)
    if len(a) != len(b):
        return True
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape:
            return True
        if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc" and y.dtype.kind in "fc"):
            return True
    return False


def _mutate(output: Any) -> Any:
    kind = STATE.mutant[3]
    STATE.applied += 1
    STATE.mutating = True  # a mutation that calls a traced function must not mutate itself
    try:
        mutated = _map_leaves(output, _leaf_mutation(kind))
        if _differs(output, mutated):
            STATE.changed += 1
    except Exception as error:  # the harness failed: recorded, and never counted as a catch
        STATE.harness_errors.append(f"{type(error).__name__}: {error}")
        raise HarnessError(f"cannot apply {STATE.mutant}: {error!r}") from error
    finally:
        STATE.mutating = False
    return mutated


def _recording(rule: Rule, call: Callable) -> Callable:
    def recorded(*args, **kwargs):
        output = call(*args, **kwargs)
        STATE.called.add(rule)
        mutant = STATE.mutant
        if mutant is not None and rule == mutant[:3] and not STATE.mutating:
            return _mutate(output)
        return output

    recorded.__wrapped__ = call
    return recorded


# ---------------------------------------------------------------------------------------------
# Wrapping the two places where the engine looks a rule up
# ---------------------------------------------------------------------------------------------


class _RuleView:
    """`fun.jvps` while a `JVPNode` is being made: the same rules, each one recorded."""

    __slots__ = ("fun", "rules")

    def __init__(self, fun: Callable, rules: dict) -> None:
        self.fun = fun
        self.rules = rules

    def get(self, argnum, default=None):
        rule = self.rules.get(argnum)
        if rule is None:
            return default
        return _recording((primitive_name(self.fun), "JVP", argnum), rule)

    def __getitem__(self, argnum):
        return _recording((primitive_name(self.fun), "JVP", argnum), self.rules[argnum])

    def __setitem__(self, argnum, rule) -> None:
        self.rules[argnum] = rule

    def __contains__(self, argnum) -> bool:
        return argnum in self.rules

    def __iter__(self):
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def keys(self):
        return self.rules.keys()

    def items(self):
        return self.rules.items()

    def values(self):
        return self.rules.values()


_INSTALLED = False


def install() -> None:
    """Wrap rule lookup in this process (idempotent); called in each child, never in the test
    process itself, whose engine stays as it is for the other tests. `STATE.mutant` chooses a
    mutation (None: record only)."""
    global _INSTALLED
    if _INSTALLED:
        return
    from ad_core import core

    if not _NAMES:
        _index_names()
    vjp_init = core.VJPNode.__init__
    jvp_init = core.JVPNode.__init__
    fallback_jvp = core._fallback_jvp

    def recorded_vjp_init(self, value, fun, args, kwargs, parent_argnums, parents):
        vjp_init(self, value, fun, args, kwargs, parent_argnums, parents)
        name = primitive_name(fun)
        closures = [_recording((name, "VJP", argnum), vjp)
                    for argnum, vjp in zip(parent_argnums, self.vjps, strict=True)]
        self.vjps = tuple(closures) if isinstance(self.vjps, tuple) else closures

    def recorded_jvp_init(self, value, fun, args, kwargs, parent_argnums, parents):
        rules = fun.jvps
        real = rules.rules if isinstance(rules, _RuleView) else rules
        fun.jvps = _RuleView(fun, real)
        try:
            jvp_init(self, value, fun, args, kwargs, parent_argnums, parents)
        finally:
            fun.jvps = rules

    def recorded_fallback_jvp(fun, argnum):
        rule = fallback_jvp(fun, argnum)
        return _recording((primitive_name(fun), "JVP", argnum), rule)

    recorded_vjp_init.__wrapped__ = vjp_init
    recorded_jvp_init.__wrapped__ = jvp_init
    core.VJPNode.__init__ = recorded_vjp_init
    core.JVPNode.__init__ = recorded_jvp_init
    core._fallback_jvp = recorded_fallback_jvp
    _INSTALLED = True


def preload() -> None:
    """Import once, in the parent, what every child needs, so that forking is cheap: NumPy,
    every engine module the book can reach, bookkit, matplotlib."""
    import ad_core

    for package in (ad_core, importlib.import_module("bookkit")):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if ".scipy" in info.name:  # needs SciPy, which the book does not
                continue
            with contextlib.suppress(ImportError):
                importlib.import_module(info.name)
    with contextlib.suppress(ImportError):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot
    from bookkit.source import engine_index

    engine_index()  # the ast index of the engine, cached: source-map snippets reuse it
    _index_names()


# ---------------------------------------------------------------------------------------------
# One snippet in one child
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    snippet: str
    mutant: Mutant | None = None
    timeout: float = 60.0


def _run_snippet(relative: str) -> None:
    """What `python -m bookkit.run_snippet <relative>` does, in this process."""
    from bookkit.claims import guard_printed

    original_print = builtins.print

    def guarded_print(*texts: object, **options: object) -> None:
        if "file" not in options:
            guard_printed(*texts)
        original_print(*texts, **options)

    path = REPO_ROOT / relative
    builtins.print = guarded_print
    sys.argv = [str(path)]
    sys.path.insert(0, str(path.parent))
    runpy.run_path(str(path), run_name="__main__")


def _child(job: Job) -> dict:
    STATE.mutant = job.mutant
    started = time.perf_counter()
    result: dict[str, Any] = {"error": None, "error_type": None, "traceback": None}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            _run_snippet(job.snippet)
    except HarnessError as error:
        result.update(error="harness: " + str(error), error_type="HarnessError")
    except BaseException as error:
        result.update(
            error=f"{type(error).__name__}: {str(error)[:300]}",
            error_type=type(error).__name__,
            error_mro=[cls.__name__ for cls in type(error).__mro__],
            traceback="".join(traceback.format_exception(error)[-6:])[-2000:],
        )
    result.update(
        seconds=time.perf_counter() - started,
        called=sorted(STATE.called),
        applied=STATE.applied,
        changed=STATE.changed,
        no_axis=STATE.no_axis,
        harness_errors=STATE.harness_errors[:3],
    )
    return result


def _start(job: Job) -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.chdir(REPO_ROOT)
            install()
            payload = json.dumps(_child(job), default=repr).encode()
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd


def run_jobs(next_jobs: Callable[[], Job | None], on_result: Callable[[Job, dict], None],
             workers: int = 2) -> None:
    """Run jobs in forked children, `workers` at a time. `next_jobs()` gives the next job or
    None (none ready now); `on_result(job, result)` may make more jobs ready. Ends when no job
    is running and none is ready."""
    running: dict[int, tuple[Job, int, float, bytearray]] = {}  # fd -> (job, pid, deadline, data)
    # The parent's objects go to the permanent generation while children are forked: a
    # child's garbage collector then never walks (and so never copies) the parent's heap.
    gc.collect()
    gc.freeze()
    try:
        _run_jobs(running, next_jobs, on_result, workers)
    finally:
        gc.unfreeze()


def _run_jobs(running: dict, next_jobs: Callable[[], Job | None],
              on_result: Callable[[Job, dict], None], workers: int) -> None:
    while True:
        while len(running) < workers:
            job = next_jobs()
            if job is None:
                break
            pid, fd = _start(job)
            running[fd] = (job, pid, time.monotonic() + job.timeout, bytearray())
        if not running:
            return
        ready, _, _ = select.select(list(running), [], [], 0.5)
        for fd in ready:
            job, pid, deadline, data = running[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                data.extend(chunk)
                continue
            os.close(fd)
            del running[fd]
            _, status = os.waitpid(pid, 0)
            try:
                result = json.loads(data.decode()) if data else None
            except ValueError:
                result = None
            if result is None:
                result = {"error": f"harness: the child exited with status {status} and no report",
                          "error_type": "HarnessError", "called": [], "seconds": 0.0,
                          "applied": 0, "changed": 0, "no_axis": 0, "harness_errors": ["no report"]}
            on_result(job, result)
        now = time.monotonic()
        for fd, (job, pid, deadline, _data) in list(running.items()):
            if now > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(fd)
                del running[fd]
                on_result(job, {"error": f"timeout after {job.timeout:.0f} s", "error_type": "Timeout",
                                "called": [], "seconds": job.timeout, "applied": 0, "changed": 0,
                                "no_axis": 0, "harness_errors": []})


# ---------------------------------------------------------------------------------------------
# The campaign
# ---------------------------------------------------------------------------------------------

NOT_A_CATCH = {"HarnessError", "ImportError", "ModuleNotFoundError"}


@dataclass
class MutantOutcome:
    mutant: Mutant
    status: str = "pending"  # caught | survived | not applicable | harness error
    caught_by: str | None = None
    error: str | None = None
    snippets_run: list = field(default_factory=list)
    applied: int = 0
    changed: int = 0
    no_axis: int = 0
    reason: str | None = None


@dataclass
class Campaign:
    pages: dict[str, list[str]]  # snippet -> pages including it
    control: dict[str, dict]  # snippet -> unmutated result
    users: dict[Rule, list[str]]  # rule -> snippets calling it, cheapest first
    outcomes: dict[Mutant, MutantOutcome]
    seconds: float


def control_run(snippets: Iterable[str], workers: int = 2) -> dict[str, dict]:
    """Every snippet once, unmutated: whether it passes and which rules it calls."""
    pending = list(snippets)
    results: dict[str, dict] = {}

    def next_job() -> Job | None:
        return Job(pending.pop(0), None, timeout=300.0) if pending else None

    def done(job: Job, result: dict) -> None:
        results[job.snippet] = result

    run_jobs(next_job, done, workers)
    return results


def mutate_rules(mutants: Iterable[Mutant], users: dict[Rule, list[str]],
                 control: dict[str, dict], workers: int = 2) -> dict[Mutant, MutantOutcome]:
    """Run each mutant on the snippets that call its rule, cheapest first, until one fails."""
    outcomes = {mutant: MutantOutcome(mutant) for mutant in mutants}
    queues = {mutant: list(users[mutant[:3]]) for mutant in outcomes}
    busy: set[Mutant] = set()
    # Mutants whose rules are called by the fewest, cheapest snippets first is not needed:
    # a round-robin over mutants keeps both workers busy.
    order = list(outcomes)

    def next_job() -> Job | None:
        for mutant in order:
            if mutant in busy or outcomes[mutant].status != "pending":
                continue
            queue = queues[mutant]
            if not queue:
                continue
            snippet = queue.pop(0)
            busy.add(mutant)
            timeout = max(30.0, 10 * control[snippet]["seconds"])
            return Job(snippet, mutant, timeout)
        return None

    def done(job: Job, result: dict) -> None:
        outcome = outcomes[job.mutant]
        busy.discard(job.mutant)
        outcome.snippets_run.append(job.snippet)
        outcome.applied += result["applied"]
        outcome.changed += result["changed"]
        outcome.no_axis += result["no_axis"]
        error_type = result.get("error_type")
        not_a_catch = error_type in NOT_A_CATCH or "ImportError" in result.get("error_mro", ())
        if result.get("harness_errors") or not_a_catch:
            outcome.status = "harness error"
            outcome.error = result.get("error") or "; ".join(result["harness_errors"])
            outcome.caught_by = job.snippet
        elif error_type is not None:
            outcome.status = "caught"
            outcome.caught_by = job.snippet
            outcome.error = result["error"]
        elif not queues[job.mutant]:
            if outcome.changed == 0:
                outcome.status = "not applicable"
                if job.mutant[3] != "wrong-axis":
                    outcome.reason = "equivalent on the pages' inputs: the mutation never changed an output"
                elif outcome.no_axis == outcome.applied:
                    outcome.reason = "the rule's output never has an axis of size > 1"
                else:
                    outcome.reason = ("every output is constant along each of its axes of size > 1 "
                                      "(or has none): no roll along an axis can change it")
            else:
                outcome.status = "survived"

    run_jobs(next_job, done, workers)
    return outcomes


def is_engine_rule(rule: Rule) -> bool:
    """A rule of a primitive the engine defines (named from its namespaces), not one a snippet
    defines for itself (a page's deliberately wrong `my_cos`, its own `softplus`): those are
    the page's subject, not rules the page relies on."""
    return rule[0].startswith(tuple(prefix + "." for prefix in set(_NAMESPACES.values())))


def in_fresh_process(name: str, *args: Any, timeout: float = 1800.0) -> Any:
    """`name(*args)`, a function of this module, run in a new interpreter; its result comes
    back pickled. The children are forked from that interpreter, which holds only what
    `preload` imports. Forked from the test process instead, each child would copy everything
    the suite imported before it (PyTorch, JAX and their threads): the whole campaign took
    about three times as long in the middle of the suite as on its own."""
    with tempfile.TemporaryDirectory() as folder:
        arguments, result = Path(folder) / "arguments.pickle", Path(folder) / "result.pickle"
        arguments.write_bytes(pickle.dumps((name, args)))
        code = (
            "import pickle, sys; sys.path.insert(0, sys.argv[1]); import _mutants; "
            "name, args = pickle.loads(open(sys.argv[2], 'rb').read()); "
            "open(sys.argv[3], 'wb').write(pickle.dumps(getattr(_mutants, name)(*args)))"
        )
        completed = subprocess.run(
            [sys.executable, "-c", code, str(Path(__file__).parent), str(arguments), str(result)],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout, check=False,
        )
        if completed.returncode != 0:
            raise HarnessError(f"_mutants.{name} failed in its own process:\n{completed.stderr[-5000:]}")
        return pickle.loads(result.read_bytes())


def campaign(workers: int = 2) -> Campaign:
    started = time.perf_counter()
    preload()
    pages = pages_including()
    control = control_run(pages, workers)
    users: dict[Rule, list[str]] = {}
    for snippet in sorted(control, key=lambda s: (control[s]["seconds"], s)):
        if control[snippet]["error"] is not None:
            continue
        for rule in control[snippet]["called"]:
            users.setdefault(tuple(rule), []).append(snippet)
    mutants = [(*rule, kind) for rule in sorted(users) if is_engine_rule(rule) for kind in KINDS]
    outcomes = mutate_rules(mutants, users, control, workers)
    return Campaign(pages, control, users, outcomes, time.perf_counter() - started)


def summary(result: Campaign, known_survivors: set) -> str:
    outcomes = result.outcomes.values()
    engine = [rule for rule in result.users if is_engine_rule(rule)]
    by_status: dict[str, list[MutantOutcome]] = {}
    for outcome in outcomes:
        by_status.setdefault(outcome.status, []).append(outcome)
    lines = [
        "Mutation test: a broken rule cannot publish (tests/test_mutations.py)",
        f"snippets included by pages: {len(result.pages)}; failing unmutated: "
        f"{sum(r['error'] is not None for r in result.control.values())}",
        f"engine rules (primitive, mode, argnum) called by pages: {len(engine)} "
        f"(VJP {sum(r[1] == 'VJP' for r in engine)}, JVP {sum(r[1] == 'JVP' for r in engine)}) "
        f"of {len({r[0] for r in engine})} primitives; rules snippets define for themselves: "
        f"{len(result.users) - len(engine)}",
        f"mutants tried: {len(result.outcomes)}; "
        + "; ".join(f"{status}: {len(items)}" for status, items in sorted(by_status.items())),
        f"known survivors listed: {len(known_survivors)}",
        f"wall time: {result.seconds:.1f} s",
        "",
    ]
    for status in ("survived", "harness error", "not applicable", "caught"):
        items = sorted(by_status.get(status, []), key=lambda o: o.mutant)
        if not items:
            continue
        lines.append(f"== {status} ({len(items)})")
        for outcome in items:
            primitive, mode, argnum, kind = outcome.mutant
            head = f"{primitive} {mode} arg {argnum} {kind}"
            if status == "caught":
                lines.append(f"  {head}: by {outcome.caught_by} ({(outcome.error or '')[:120]!r})")
            elif status == "not applicable":
                lines.append(f"  {head}: {outcome.reason}")
            elif status == "harness error":
                lines.append(f"  {head}: {outcome.error}")
            else:
                users = result.users[outcome.mutant[:3]]
                page_names = sorted({page for s in users for page in result.pages[s]})
                known = "known" if outcome.mutant in known_survivors else "NEW"
                lines.append(f"  {head} [{known}]: called by {', '.join(users)}; "
                             f"pages {', '.join(page_names)}")
        lines.append("")
    own = sorted(rule for rule in result.users if not is_engine_rule(rule))
    if own:
        lines.append(f"== rules a snippet defines for itself, not mutated ({len(own)})")
        lines.extend(f"  {p} {mode} arg {argnum}: {', '.join(result.users[(p, mode, argnum)])}"
                     for p, mode, argnum in own)
        lines.append("")
    return "\n".join(lines)

