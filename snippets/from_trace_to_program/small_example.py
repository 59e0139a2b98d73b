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
gradient = staged(x)  # the first call traces; later calls with a (4,) float64 replay
program = staged.program(x)  # str(program) is the listing below
# --8<-- [end:stage]

raw = staged.raw_program(x)
# The derivative of sum(tanh(x) x) is tanh(x) + x (1 - tanh(x)^2), computed here without the engine.
closed_form = np.tanh(x) + x * (1 - np.tanh(x) ** 2)
assert np.allclose(gradient, closed_form, rtol=1e-15, atol=1e-15)
other = np.linspace(-2.0, 3.0, 4)

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
