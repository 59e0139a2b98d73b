"""When each half of a VJP rule runs: the maker in the forward pass, the closure in the backward."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, inspect
from ad_core.extend import defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import fmt_array, md_table

calls = []  # (position in the engine's event list when the call happened, who, value)


def engine_step() -> int:
    return len(inspect.active.events)


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
with inspect.record() as recording:
    gradient = grad(lambda x: anp.sum(cube(x)))(x)
np.testing.assert_array_equal(gradient, 3 * x**2)

rows = []
timeline = [(event.step, 0, event.kind, event.primitive, event.value) for event in recording.events]
# A rule call that happened when k events existed comes before event k.
timeline += [(step - 0.5, 1, who, "cube", value) for step, who, value in calls]
for _, from_rule, what, primitive_name, value in sorted(timeline, key=lambda item: item[:2]):
    who = f"**{what}**" if from_rule else f"engine: `{what}`"
    rows.append([who, f"`{primitive_name}`", f"`{fmt_array(value)}`", f"`{np.shape(value)}`"])

maker_position = next(i for i, row in enumerate(rows) if "maker" in row[0])
closure_position = next(i for i, row in enumerate(rows) if "closure" in row[0])
first_visit = next(i for i, row in enumerate(rows) if "visit" in row[0])
assert maker_position < first_visit < closure_position
assert sum("maker" in row[0] for row in rows) == 1
assert sum("closure" in row[0] for row in rows) == 1
print(md_table(["who runs", "primitive", "value", "shape"], rows))
print(
    f"\nThe maker ran once, before the backward pass began (row {maker_position + 1}); "
    f"the closure ran once, inside it (row {closure_position + 1}), and returned "
    f"`{fmt_array(gradient)}` $= 3x^2$."
)

calls.clear()
with inspect.record():  # engine_step() reads the active recording
    check_grads(cube, modes=("rev",), order=1)(x)
print("\n`check_grads(cube, modes=(\"rev\",), order=1)` passed as well.")
