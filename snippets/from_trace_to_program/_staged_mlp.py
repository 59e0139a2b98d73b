"""Part III's model, staged: the loss as a function of the parameter dict, and its staged
value_and_grad on one seeded minibatch. Hidden helper for this chapter's snippets."""

import ast
import linecache
import re
import sys
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import stage, value_and_grad
from ad_core.staging import _refs_in, _substitute
from bookkit import load_snippet_module

model = load_snippet_module("snippets/network_by_hand/_model.py")
forward, init_params, sample_batch = model.forward, model.init_params, model.sample_batch


def loss(params, Xb, Yb):
    return forward(params, Xb, Yb, xp=anp)["loss"]


params = init_params()
Xb, Yb = sample_batch(seed=0)
eager_step = value_and_grad(loss)
staged_step = stage(eager_step)
program = staged_step.program(params, Xb, Yb)
raw = staged_step.raw_program(params, Xb, Yb)


def count_calls(listing: str) -> int:
    """Primitive calls counted from a listing's text: the lines that assign a value."""
    return sum(1 for line in listing.splitlines() if " = " in line and not line.strip().startswith("#"))


def brute_force_peak(program) -> int:
    """Peak live bytes counted by buffers instead of by deaths: a call that neither views nor
    reuses allocates a buffer; the buffer lives from that call to the last call that reads any
    value held in it (the value, its views, the results written into it), or to the end if the
    function returns one of them. The peak is the largest sum over the buffers alive at a call."""
    buffer_of, start, size = {}, {}, {}
    for index, op in enumerate(program.ops):
        info = program.info[op.out]
        if op.reuses is not None:
            buffer_of[op.out] = buffer_of[op.reuses]
        elif info.view_of is not None:
            buffer_of[op.out] = buffer_of.get(info.view_of)
        else:
            buffer_of[op.out] = op.out
            start[op.out], size[op.out] = index, info.nbytes
    stop = dict(start)
    for index, op in enumerate(program.ops):
        for var in _refs_in((op.args, op.kwargs)):
            if buffer_of.get(var) is not None:
                stop[buffer_of[var]] = max(stop[buffer_of[var]], index)
        if buffer_of[op.out] is not None:
            stop[buffer_of[op.out]] = max(stop[buffer_of[op.out]], index)
    for var in _refs_in(program.outputs):
        if buffer_of.get(var) is not None:
            stop[buffer_of[var]] = len(program.ops)
    return max((sum(size[b] for b in start if start[b] <= index <= stop[b])
                for index in range(len(program.ops))), default=0)


def lines_not_kept(before, after) -> int:
    """Calls of `before` that `after` does not make as they were: same result, same function, same
    buffer; counted from the two programs' calls, not from the pass's report."""
    kept = {(op.out, id(op.fun), op.reuses) for op in after.ops}
    return sum((op.out, id(op.fun), op.reuses) not in kept for op in before.ops)


def bytes_if_never_freed(program, *args) -> int:
    """Run the program's calls one by one on real arguments (no `del`, no `out=`) and add up the
    bytes of every result that does not share memory with an earlier value or an input."""
    values = dict(zip(program.inputs, args, strict=True))
    total = 0
    for op in program.ops:
        args_, kwargs = _substitute((op.args, op.kwargs), values.__getitem__)
        result = op.fun(*args_, **kwargs)
        if not any(np.may_share_memory(result, earlier) for earlier in values.values()
                   if isinstance(earlier, np.ndarray)):
            total += np.asarray(result).nbytes
        values[op.out] = result
    return total


def program_values(program, *args) -> dict:
    """Every value of `program` on real arguments: its calls run one by one, each result copied
    (no `del`, no `out=`)."""
    values = dict(zip(program.inputs, program_inputs(program, *args), strict=True))
    for op in program.ops:
        args_, kwargs = _substitute((op.args, op.kwargs), values.__getitem__)
        values[op.out] = np.array(op.fun(*args_, **kwargs), copy=True)
    return values


def first_equal(values: dict, array) -> int | None:
    """The first value (in program order) with the shape and the bits of `array`."""
    return next((var for var, value in values.items()
                 if np.shape(value) == np.shape(array) and np.array_equal(value, array)), None)


def hand_line(path: str, region: str, pattern: str) -> str:
    """The one line inside the `--8<--` region `region` of the file at `path` that `pattern`
    matches, without its comment."""
    lines, inside = [], False
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        marker = re.search(r"--8<-- \[(start|end):(\w+)\]", line)
        if marker and marker.group(2) == region:
            inside = marker.group(1) == "start"
        elif inside and re.search(pattern, line):
            lines.append(line.split("  #")[0].strip())
    assert len(lines) == 1, (region, pattern, lines)
    return lines[0]


def program_inputs(program, *args) -> list:
    """The arrays `program` takes, found in `args` by its `input_paths` (`args[0]['C']`)."""
    found = []
    for path in program.input_paths:
        value = args
        for subscript in re.findall(r"\[([^\]]*)\]", path):
            value = value[ast.literal_eval(subscript)]
        found.append(value)
    return found


def python_frames(run, inputs, install) -> int:
    """How many Python functions one call `run(*inputs)` enters, counted by a hook installed
    with `install` (`sys.setprofile` or `sys.settrace`, two separate counters)."""
    entered = 0

    def hook(frame, event, arg):
        nonlocal entered
        entered += event == "call"
        return None  # no per-line tracing

    install(hook)
    try:
        run(*inputs)
    finally:
        install(None)
    return entered


def program_runs(call) -> tuple:
    """How many times `call()` enters the Python function a staged program compiles to (its
    code's file name is `<staged name>`), counted with `sys.setprofile`."""
    entered = 0

    def hook(frame, event, arg):
        nonlocal entered
        code = frame.f_code  # the function, not the module code that defines it
        entered += event == "call" and code.co_filename.startswith("<staged ") and code.co_name != "<module>"

    sys.setprofile(hook)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return entered, result


def executed_gradient_lines(run, functions) -> int:
    """Lines of `functions` that `run()` executes and that compute a gradient: each assigns (or
    adds into) a `d...` name, or scatters into one with `np.add.at`. Counted with `sys.settrace`."""
    codes = {function.__code__ for function in functions}
    executed: set[tuple[str, int]] = set()

    def local(frame, event, arg):
        if event == "line":
            executed.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    def on_call(frame, event, arg):
        return local if frame.f_code in codes else None

    sys.settrace(on_call)
    try:
        run()
    finally:
        sys.settrace(None)
    return sum(1 for filename, line in executed if _GRADIENT_LINE.match(linecache.getline(filename, line)))


_GRADIENT_LINE = re.compile(r"\s*(d\w+(\[.*\])?\s*\+?=[^=]|np\.add\.at\(d)")


def lines_in_regions(path: str, regions: list[str]) -> int:
    """Lines between the `--8<-- [start:name]` and `[end:name]` markers of `regions` that
    compute a gradient (read from the file, not from a run)."""
    count, inside = 0, None
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        marker = re.search(r"--8<-- \[(start|end):(\w+)\]", line)
        if marker:
            inside = marker.group(2) if marker.group(1) == "start" and marker.group(2) in regions else None
        elif inside and _GRADIENT_LINE.match(line):
            count += 1
    return count


def distinct_bytes(arrays) -> int:
    """Bytes of the buffers behind `arrays`, each buffer once (a view adds nothing)."""
    roots = {}
    for array in arrays:
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        roots[id(root)] = root.nbytes
    return sum(roots.values())
