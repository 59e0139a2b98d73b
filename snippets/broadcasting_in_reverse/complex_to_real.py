"""Complex to real: a real bias added to complex numbers gets back a real cotangent."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.inspect import record
from ad_core.numpy.wrapper import metadata
from bookkit import assert_shape_then_close, fmt_array_inline, fmt_shape, load_snippet_module, md_table
from bookkit.checks import central_differences

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

# --8<-- [start:experiment]
z = np.array([1 + 2j, 3 - 1j, -0.5 + 0.5j])
b = 0.5  # a real bias


def energy(b):
    # A real loss of a complex intermediate z + b.
    return anp.sum(anp.abs(z + b) ** 2)


with record() as recording:
    grad_b = grad(energy)(b)
# --8<-- [end:experiment]

stages = helpers.stages_inside(recording.events, "add")
names = [event.detail["stage"] for event in stages]
assert names == ["enter", "sum_leading", "real", "return"], names
assert np.iscomplexobj(stages[1].value) and not np.iscomplexobj(stages[2].value)
assert not np.iscomplexobj(grad_b) and np.shape(grad_b) == ()
# |z + b|^2 = (Re z + b)^2 + (Im z)^2, so dL/db = 2 * sum(Re z + b).
closed_form = 2 * np.sum(z.real + b)
assert_shape_then_close(np.asarray(grad_b), np.asarray(closed_form))
fd = central_differences(lambda b: np.sum(np.abs(z + b) ** 2), b)
assert_shape_then_close(np.asarray(grad_b), fd, rtol=1e-8)
# The part the real stage throws away is the imaginary part of the summed cotangent.
dropped = stages[1].value.imag
assert dropped != 0

print(helpers.backward_snapshot_table(recording.events, "add", "b", metadata(b)))
print()
print(md_table(
    ["check", "value"],
    [
        ["`dL/db` from the engine", helpers.value_cell(grad_b)],
        ["closed form `2 * sum(z.real + b)`", helpers.value_cell(closed_form)],
        ["central finite difference", helpers.value_cell(np.round(fd, 6))],
        ["imaginary part dropped by the `real` stage", helpers.value_cell(dropped)],
    ],
))
print()
print(
    f"The cotangent reaching `add` is complex, and after the sum it is still the complex "
    f"number `{fmt_array_inline(stages[1].value)}`. But `b` is real: you can only nudge it "
    f"along the real line, and a real nudge `db` changes `L` by the real part of that number "
    f"times `db`. The imaginary part `{fmt_array_inline(dropped)}` has no direction in `b`'s "
    f"space to act on, so the `real` stage drops it. The returned gradient has shape "
    f"`{fmt_shape(np.shape(grad_b))}` and dtype `{np.result_type(grad_b)}`."
)
