"""When each half of a VJP rule runs: the maker in the forward pass, the closure in the backward."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, recorder
from ad_core.extend import defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import checked, fmt_shape, md_table, text

calls = []  # (position in the engine's event list when the call happened, who, value)


def engine_step() -> int:
    return len(recorder.active.events)


# --8<-- [start:rule]
@primitive
def cube(x):
    return x**3


def cube_vjp_maker(ans, x):
    calls.append((engine_step(), "maker `cube_vjp_maker(ans, x)`", ans))

    def vjp(g):
        calls.append((engine_step(), "closure `vjp(g)`", g))
        return g * 3 * x**2

    return vjp


defvjp(cube, cube_vjp_maker)
# --8<-- [end:rule]

x = np.array([1.0, 2.0])
with recorder.record() as recording:
    gradient = grad(lambda x: anp.sum(cube(x)))(x)

# What each row must hold, from closed forms: ans = x**3 and its sum, the seed 1, the ones
# that sum's rule sends back, and 3 x**2 from the closure on.
expected = {
    "maker": x**3, ("forward", "cube"): x**3, ("forward", "sum"): float(np.sum(x**3)),
    ("visit", "sum"): 1.0, ("vjp", "sum"): np.ones(2), ("accumulate", "cube"): np.ones(2),
    ("visit", "cube"): np.ones(2), "closure": np.ones(2), ("vjp", "cube"): 3 * x**2,
    ("accumulate", "root"): 3 * x**2, ("visit", "root"): 3 * x**2,
}

rows, row_kinds = [], []
timeline = [(event.step, 0, event.kind, event.primitive, event.value) for event in recording.events]
# A rule call that happened when k events existed comes before event k.
timeline += [(step - 0.5, 1, who, "cube", value) for step, who, value in calls]
for _, from_rule, what, primitive_name, value in sorted(timeline, key=lambda item: item[:2]):
    who = f"**{what}**" if from_rule else f"engine: `{what}`"
    kind = what.split()[0] if from_rule else (what, primitive_name)
    row_kinds.append(kind)
    rows.append([
        who,
        f"`{primitive_name}`",
        checked(value, against=expected[kind]),
        checked(list(np.shape(value)), against=list(np.shape(expected[kind])),
                shown_as=lambda v: f"`{fmt_shape(tuple(v))}`"),
    ])

assert row_kinds.count("maker") == 1 and row_kinds.count("closure") == 1
maker_position, closure_position = row_kinds.index("maker"), row_kinds.index("closure")
first_visit = next(i for i, kind in enumerate(row_kinds) if kind[0] == "visit")
assert maker_position < first_visit < closure_position
print(md_table(["who runs", "primitive", "value", "shape"], rows))
print()
print(text(
    "The maker ran once, before the backward pass began (row {maker}); the closure ran once, "
    "inside it (row {closure}), and returned {gradient} $= 3x^2$.",
    # From the recorded steps: the engine events that existed when each call happened, plus
    # the rows of earlier calls.
    maker=checked(maker_position + 1, against=calls[0][0] + 1),
    closure=checked(closure_position + 1, against=calls[1][0] + 2),
    gradient=checked(gradient, against=3 * x**2),
))

calls.clear()
with recorder.record():  # engine_step() reads the active recording
    check_grads(cube, modes=("rev",), order=1)(x)
print("\n`check_grads(cube, modes=(\"rev\",), order=1)` passed as well.")
