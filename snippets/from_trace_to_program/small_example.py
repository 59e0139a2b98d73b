"""Stage the gradient of a small function; print the program as traced and after the passes."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, stage
from bookkit import checked, load_snippet_module, observed, text, yes_no

helpers = load_snippet_module(Path(__file__).with_name("_staged_mlp.py"))

# --8<-- [start:stage]
def f(x):
    return anp.sum(anp.tanh(x) * x)


staged = stage(grad(f))
x = np.linspace(-1.0, 1.0, 4)
gradient = staged(x)  # traces, then runs the program; later (4,) float64 calls only run it
program = staged.program(x)  # str(program) is the listing below
# --8<-- [end:stage]

raw = staged.raw_program(x)
# The derivative of sum(tanh(x) x) is tanh(x) + x (1 - tanh(x)^2), computed here without the engine.
closed_form = np.tanh(x) + x * (1 - np.tanh(x) ** 2)
assert np.allclose(gradient, closed_form, rtol=1e-15, atol=1e-15)
other = np.linspace(-2.0, 3.0, 4)
# What the first call returns: a fresh staging of the same function, its first call watched.
runs, first = helpers.program_runs(lambda: stage(grad(f))(x))

print("As traced, before any pass:\n")
print(observed(str(raw)))
print("After the passes:\n")
print(observed(str(program)))
print(text(
    "The trace holds {raw} primitive calls, forward and backward; {kept} remain after the "
    "passes. On a new input of the same shape the staged gradient equals the eager one to the "
    "last bit: {same}.",
    raw=checked(raw.n_calls, against=helpers.count_calls(str(raw))),
    kept=checked(program.n_calls, against=helpers.count_calls(str(program))),
    same=checked(bool(np.array_equal(staged(other), grad(f)(other))), against=True, shown_as=yes_no),
))
print()
assert runs == 1  # the first call ran the compiled program once
print(text(
    "The first call traces, compiles, and then runs the program on its arguments, so it "
    "returns the program's result, not the values the trace computed on the way; it and a later "
    "replay on the same input are the same bits: {same}.",
    same=checked(bool(np.array_equal(first, staged(x)) and np.array_equal(gradient, first)),
                 against=True, shown_as=yes_no),
))
