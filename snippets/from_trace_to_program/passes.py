"""Each optimisation pass on a small example of its own and on Part III's training step."""

import sys
from collections import Counter
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, stage
from ad_core.staging import (
    _refs_in,
    call_numpy_directly,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fold_shape_only,
    reuse_dead_buffers,
)
from bookkit import checked, given, load_snippet_module, md_table, text
from bookkit.claims import Rendered

helpers = load_snippet_module(Path(__file__).with_name("_staged_mlp.py"))
x = np.linspace(-1.0, 1.0, 4)

# --8<-- [start:examples]
examples = {
    "fold shape-only work": lambda x: anp.sum(x * anp.ones_like(x) + anp.zeros_like(x)),
    "call NumPy directly": lambda x: anp.dot(anp.reshape(x, (2, 2)), x[:2]) - anp.mean(x),
    "common-subexpression elimination": lambda x: anp.sin(x) * anp.sin(x),
    "dead-code elimination": grad(lambda x: anp.sum(anp.sin(x)) * 3.0),
    "reuse dead buffers": lambda x: anp.exp(anp.sin(anp.cos(anp.tanh(x)))),
}
# --8<-- [end:examples]
passes = {
    "fold shape-only work": fold_shape_only,
    "call NumPy directly": call_numpy_directly,
    "common-subexpression elimination": eliminate_common_subexpressions,
    "dead-code elimination": eliminate_dead_code,
    "reuse dead buffers": reuse_dead_buffers,
}


def code(line: str) -> str:
    return f"`{line}`"


rows = []
for name, fun in examples.items():
    before = stage(fun).raw_program(x)
    after = passes[name](before)
    report = after.passes[-1]
    touched = report.removed + report.changed
    assert touched, name
    rows.append([
        name,
        checked(report.before, against=helpers.count_calls(str(before))),
        checked(report.after, against=helpers.count_calls(str(after))),
        checked(before.peak_bytes, against=helpers.brute_force_peak(before)),
        checked(after.peak_bytes, against=helpers.brute_force_peak(after)),
        "<br>".join(code(line) for line in touched),
    ])
    # The pass changes the program, never the result.
    assert np.array_equal(after.compile()(x), before.compile()(x))
# The gradient example against its closed form, d/dx 3 sum(sin x) = 3 cos x, without the engine.
assert np.allclose(stage(examples["dead-code elimination"])(x), 3.0 * np.cos(x), rtol=1e-15, atol=0)
# A row maximum's staged gradient against its closed form: each row's weight where the row's
# maximum is, zero elsewhere. (In Part III's loss the maximum's path cancels, so it is checked here.)
maxima_input, weights = np.array([[0.3, -1.0, 0.1], [2.0, 0.5, 2.5]]), np.array([1.0, 2.0])
row_max_grad = stage(grad(lambda a: anp.sum(anp.max(a, axis=1) * weights)))(maxima_input)
at_maximum = maxima_input == maxima_input.max(axis=1, keepdims=True)
assert np.array_equal(row_max_grad, at_maximum * weights[:, None])
print(md_table(["pass", "calls before", "calls after", "peak bytes before", "peak bytes after",
                "lines removed or rewritten"], rows))
print()

# Part III's step, one pass after another, from the program as traced.
program = helpers.raw
mlp_rows = []
for name, optimise in passes.items():
    result = optimise(program)
    report = result.passes[-1]
    mlp_rows.append([
        name,
        checked(report.before, against=helpers.count_calls(str(program))),
        checked(report.after, against=helpers.count_calls(str(result))),
        checked(result.peak_bytes, against=helpers.brute_force_peak(result)),
        checked(len(report.removed) + len(report.changed), against=helpers.lines_not_kept(program, result)),
    ])
    program = result
assert program.source == helpers.program.source  # the same passes stage() runs, in its order
print(md_table(["pass on Part III's training step", "calls before", "calls after",
                "peak live bytes after", "lines removed or rewritten"], mlp_rows))

# Why the first two passes change the count of calls on Part III's step, from the programs.
raw = helpers.raw
folded = fold_shape_only(raw)
direct = call_numpy_directly(folded)
same_shape_reshapes = sum(op.name == "reshape" and raw.info[op.args[0].var].shape == raw.info[op.out].shape
                          for op in raw.ops)
fold_removed = Counter(line.split(" = ")[1].split("(")[0] for line in folded.passes[-1].removed)
assert set(fold_removed) == {"reshape"}  # nothing else is folded on this step
direct_report = direct.passes[-1]
broadcasts_removed = [line for line in direct_report.removed if " = broadcast_to(" in line]
assert len(broadcasts_removed) == len(direct_report.removed)  # the pass removes only broadcasts
after_fun = {op.out: op.fun for op in direct.ops}
# Each rewrite, as the pass reports it (`t4 = sum(...)  ->  add.reduce(...)`) ...
rewrites = Counter((line.split(" = ")[1].split("(")[0],
                    " and ".join(f"`{part.strip().split('(')[0]}`"
                                 for part in line.split("->")[1].split(";")))
                   for line in direct_report.changed)
# ... and counted from the programs: calls of `folded` whose result `direct` computes with another function.
rewritten = Counter(op.name for op in folded.ops if op.out in after_fun and after_fun[op.out] is not op.fun)
split = sum(len(line.split("->")[1].split(";")) - 1 for line in direct_report.changed)
assert direct_report.after == direct_report.before - len(broadcasts_removed) + split
assert [line.split(" = ")[1].split("(")[0] for line in direct_report.changed if ";" in line] == ["mean"]
removed_vars = {op.out for op in folded.ops} - set(after_fun)
assert len(removed_vars) == len(broadcasts_removed)
assert all(isinstance(user.fun, np.ufunc) for user in folded.ops  # read only by ufuncs
           if removed_vars & set(_refs_in((user.args, user.kwargs))))
# Both folded reshapes are the max rule's (`grad_chooser`): of its answer, read by the `equal`
# that marks the winners, and of its cotangent, read by the `divide` by their count.
reshaped = {op.out: op.args[0].var for op in raw.ops
            if op.name == "reshape" and raw.info[op.args[0].var].shape == raw.info[op.out].shape}
readers = {next(user.name for user in raw.ops if var in set(_refs_in(user.args))) for var in reshaped}
max_out = next(op.out for op in raw.ops if op.name == "max")
assert readers == {"equal", "divide"} and max_out in reshaped.values()
ordered = sorted(rewrites.items(), key=lambda item: (-item[1], item[0]))
# A rewrite that keeps its name calls the NumPy function's implementation, `__wrapped__`.
same_name = {name for (name, target), _ in ordered if target == f"`{name}`"}
assert all(after_fun[op.out] is op.fun.__wrapped__ for op in folded.ops
           if op.name in same_name and after_fun.get(op.out, op.fun) is not op.fun)
print()
print(text(
    "Folding removes {reshapes} `reshape` calls to the shape their argument already has: the rule "
    "of `max` reshapes its answer and its cotangent to the kept shape, which `keepdims=True` "
    "already gives them. Calling "
    "NumPy directly removes {broadcasts} `broadcast_to` calls that only ufuncs read, since a ufunc "
    "broadcasts its arguments itself, and writes the loss's `mean` as two calls, hence "
    "{before} calls before it and {after} after. It rewrites ",
    reshapes=checked(fold_removed["reshape"], against=same_shape_reshapes),
    broadcasts=checked(len(broadcasts_removed),
                       against=folded.counts()["broadcast_to"] - direct.counts().get("broadcast_to", 0)),
    before=checked(direct_report.before, against=folded.n_calls),
    after=checked(direct_report.after, against=direct.n_calls),
) + Rendered(", ").join(
    text("{count} `{name}` into {target}", name=given(name, shown_as=str),
         target=given(target, shown_as=str),
         count=checked(count, against=rewritten[name]))
    for (name, target), count in ordered if target != f"`{name}`")
    + text(", and ")
    + Rendered(" and ").join(
        text("{count} `{name}`", name=given(name, shown_as=str),
             count=checked(count, against=rewritten[name]))
        for (name, target), count in ordered if target == f"`{name}`")
    + text(" into NumPy's implementation of each, without the `__array_function__` protocol."))

# What calling NumPy directly saves is interpreter work: Python functions entered per replay.
inputs = helpers.program_inputs(helpers.raw, helpers.params, helpers.Xb, helpers.Yb)
frames = {name: (helpers.python_frames(run, inputs, sys.setprofile),
                 helpers.python_frames(run, inputs, sys.settrace))
          for name, run in (("before", folded.compile()), ("after", call_numpy_directly(folded).compile()))}
print()
print(text(
    "On Part III's step, one run of the program enters {before} Python functions before the pass "
    "\"call NumPy directly\" and {after} after it, the program's own function included.",
    before=checked(frames["before"][0], against=frames["before"][1]),
    after=checked(frames["after"][0], against=frames["after"][1]),
))
