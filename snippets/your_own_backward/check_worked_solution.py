"""The checker command on the worked solution, run at build time: every gradient bit-equal."""

from pathlib import Path

from bookkit import checked, given, load_snippet_module, observed, text

runner = load_snippet_module(Path(__file__).with_name("_run_checker.py"))
worked = runner.checker.worked
solution = load_snippet_module(runner.HERE / "_solution.py")

run = runner.run_checker("_solution.py")
print(observed(run.shown(), lang="console"))
print()

# Independent checks of the printout. Every row: the page's prediction of bit-equality (at a
# power-of-two batch the hand-written lines round like the engine's rules) and, for the
# parameters, a float64 central difference of the loss along a random direction.
example = worked.worked_example()
rows = runner.report_rows(run.stdout)
assert list(rows) == list(runner.checker.BACKWARD_ORDER)
assert all(worked.predicted_bit_equal(name, example.batch_size) for name in rows)
assert all("| exact: True " in line for line in rows.values())
mine = solution.backward(example.params, example.cache, example.Xb, example.Yb)
params = list(example.params)
agree = [worked.central_difference_agrees(example.params, example.Xb, example.Yb, name, mine[name], seed=i)
         for i, name in enumerate(params)]
assert all(agree)
print(text(
    "Exit status {status}: all {n} gradients are bit-equal to `ad_core`'s, as predicted for a "
    "batch of {B}: a power of two, so even the step through `log`, the one line written "
    "differently from the engine's rule, rounds alike. A central difference of the loss along a "
    "random direction confirms each of the {p} parameter gradients.",
    status=checked(run.returncode, against=0),
    n=checked(len(rows), against=len(mine)),
    B=given(example.batch_size),
    p=checked(len(params), against=int(sum(agree))),
))
