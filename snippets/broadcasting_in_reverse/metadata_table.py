"""metadata(target) for each target: what unbroadcast_f captures during the forward pass."""

import numpy as np

from ad_core.numpy.wrapper import metadata
from bookkit import load_snippet_module, md_table

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

targets = {
    "scalar bias `2.0`": helpers.SCALAR_BIAS,
    "vector bias `[10, 20, 30]`": helpers.VECTOR_BIAS,
    "row bias `[[10, 20, 30]]`": helpers.ROW_BIAS,
    "column bias `[[100], [200]]`": helpers.COLUMN_BIAS,
    "complex vector `[1+2j, 3-1j]`": np.array([1 + 2j, 3 - 1j]),
}

rows = []
for name, target in targets.items():
    # --8<-- [start:metadata]
    shape, ndim, dtype, iscomplex = metadata(target)
    # --8<-- [end:metadata]
    assert shape == np.shape(target) and ndim == np.ndim(target)
    assert dtype == np.result_type(target) and iscomplex == np.iscomplexobj(target)
    rows.append([name, helpers.shape_cell(shape), str(ndim), f"`{dtype}`", f"`{iscomplex}`"])

print(md_table(["target", "`shape`", "`ndim`", "`dtype`", "`iscomplex`"], rows))
print()
print(
    "Each tuple describes the target's vector space, not any gradient: it is computed once, "
    "in the forward pass, and read back in the backward pass."
)
