"""Each optimisation pass on a small example of its own and on Part III's training step."""

import sys
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, stage
from ad_core.staging import (
    call_numpy_directly,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fold_shape_only,
    reuse_dead_buffers,
)
from bookkit import checked, load_snippet_module, md_table, text

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

# What calling NumPy directly saves is interpreter work: Python functions entered per replay.
inputs = helpers.program_inputs(helpers.raw, helpers.params, helpers.Xb, helpers.Yb)
folded = fold_shape_only(helpers.raw)
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
