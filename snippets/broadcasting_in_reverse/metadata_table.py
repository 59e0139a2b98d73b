"""metadata(target) for each target: what unbroadcast_f captures during the forward pass."""

from pathlib import Path

import numpy as np

from ad_core.numpy.wrapper import metadata
from bookkit import checked, load_snippet_module, md_table, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

targets = {
    "scalar bias": helpers.SCALAR_BIAS,
    "vector bias": helpers.VECTOR_BIAS,
    "row bias": helpers.ROW_BIAS,
    "column bias": helpers.COLUMN_BIAS,
    "complex vector": np.array([1 + 2j, 3 - 1j]),
}

rows = []
for name, target in targets.items():
    # --8<-- [start:metadata]
    shape, ndim, dtype, iscomplex = metadata(target)
    # --8<-- [end:metadata]
    # Each field against NumPy's own description of the value.
    rows.append([
        text("{name} {value}", name=name, value=helpers.given_value(target)),
        helpers.shape_cell(shape, np.shape(target)),
        checked(ndim, against=np.ndim(target)),
        checked(str(dtype), against=str(np.asarray(target).dtype), shown_as=helpers.code),
        checked(iscomplex, against=bool(np.iscomplexobj(target)), shown_as=helpers.code),
    ])

print(md_table(["target", "`shape`", "`ndim`", "`dtype`", "`iscomplex`"], rows))
print()
print(
    "Each tuple describes the target's vector space, not any gradient: it is computed once, "
    "in the forward pass, and read back in the backward pass."
)
