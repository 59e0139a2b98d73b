"""Which `ad_core.numpy` functions are primitives, and what a primitive does with plain and with
boxed arguments."""

import numpy as np

from ad_core import make_vjp
from ad_core import numpy as anp
from ad_core.tracer import Box
from bookkit import md_table

# --8<-- [start:plain_call]
plain = anp.sin(0.5)  # no box among the arguments: the wrapper just calls numpy.sin
assert anp.sin.fun is np.sin and type(plain) is type(np.sin(0.5))
# --8<-- [end:plain_call]

functions = [
    ("sin", anp.sin),
    ("multiply", anp.multiply),
    ("sum", anp.sum),
    ("dot", anp.dot),
    ("array_getitem", anp.array_getitem),
    ("argmax", anp.argmax),
    ("floor", anp.floor),
    ("shape", anp.shape),
    ("zeros", anp.zeros),
]
rows = []
for name, function in functions:
    is_primitive = getattr(function, "is_primitive", False)
    has_vjp = 0 in getattr(function, "vjps", {})
    has_jvp = 0 in getattr(function, "jvps", {})
    rows.append(
        [
            f"`anp.{name}`",
            "yes" if is_primitive else "no (unboxes its arguments)",
            "yes" if has_vjp else "—",
            "yes" if has_jvp else "—",
        ]
    )
assert anp.sin.is_primitive and not anp.argmax.is_primitive

# What each kind of function returns when it meets a box, recorded during a real trace.
outputs = {}


def probe(x):
    outputs["anp.sin(x)"] = anp.sin(x)
    outputs["anp.argmax(x)"] = anp.argmax(x)
    outputs["anp.floor(x)"] = anp.floor(x)
    outputs["anp.shape(x)"] = anp.shape(x)
    outputs["x > 0"] = x > 0
    return anp.sum(outputs["anp.sin(x)"])


make_vjp(probe)(np.array([0.5, -1.5, 2.5]))
box_rows = [
    [f"`{expression}`", f"`{type(value).__name__}`", "yes" if isinstance(value, Box) else "no"]
    for expression, value in outputs.items()
]
assert isinstance(outputs["anp.sin(x)"], Box)
assert not any(isinstance(outputs[k], Box) for k in outputs if k != "anp.sin(x)")

print(md_table(["function", "primitive?", "VJP rule for argument 0", "JVP rule for argument 0"], rows))
print()
print("Called on a box `x` of shape `(3,)` inside a trace:")
print()
print(md_table(["expression", "returns", "a box?"], box_rows))
