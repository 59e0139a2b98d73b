"""Complex to real: a real bias added to complex numbers gets back a real cotangent."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record
from bookkit import checked, load_snippet_module, md_table, text
from bookkit.checks import central_differences
from bookkit.formatting import _fmt_number as fmt_number

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

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
assert [event.detail["stage"] for event in stages] == ["enter", "sum_leading", "real", "return"]
# |z + b|^2 = (Re z + b)^2 + (Im z)^2, so dL/db = 2 * sum(Re z + b).
closed_form = 2 * np.sum(z.real + b)
fd = central_differences(lambda b: np.sum(np.abs(z + b) ** 2), b)
# The cotangent that reaches add: the rule of abs(w)**2 sends 2 * conj(w) for w = z + b
# (the convention ad_core uses for complex cotangents).
reaching_add = 2 * np.conj(z + b)
# The part the real stage throws away: the imaginary part of the summed cotangent.
dropped = np.sum(reaching_add).imag

print(helpers.backward_snapshot_table(
    recording.events, "add", "b", b,
    forward_value=z + b,
    cotangent=reaching_add,
    entering=reaching_add,
    gradient=fd,
))
print()
print(md_table(
    ["check", "value"],
    [
        ["`dL/db` from the engine", helpers.value_cell(grad_b, closed_form, rtol=1e-15)],
        ["closed form `2 * sum(z.real + b)`", helpers.value_cell(closed_form, fd, rtol=1e-8)],
        ["central finite difference", checked(fd, against=closed_form, rtol=1e-8,
                                              shown_as=lambda v: helpers.code(fmt_number(v, 6)))],
        ["imaginary part dropped by the `real` stage",
         helpers.value_cell(stages[1].value.imag, dropped, rtol=1e-15)],
    ],
))
print()
print(text(
    "The cotangent reaching `add` is complex, and after the sum it is still the complex number "
    "{summed}. But `b` is real: you can only nudge it along the real line, and a real nudge "
    "`db` changes `L` by the real part of that number times `db`. The imaginary part {dropped} "
    "has no direction in `b`'s space to act on, so the `real` stage drops it. The returned "
    "gradient has shape {shape} and dtype {dtype}.",
    summed=helpers.value_cell(stages[1].value, np.sum(reaching_add), rtol=1e-15),
    dropped=helpers.value_cell(stages[1].value.imag, dropped, rtol=1e-15),
    shape=helpers.shape_cell(np.shape(grad_b), np.shape(b)),
    dtype=checked(str(np.result_type(grad_b)), against=str(np.result_type(b)),
                  shown_as=helpers.code),
))
