"""The live source of unbroadcast_f and of the metadata() it captures, and metadata(target) for
each target of the chapter: the forward-pass description of the space a cotangent returns to."""

from pathlib import Path

import numpy as np

from ad_core.numpy.vjps import unbroadcast_f
from ad_core.numpy.wrapper import metadata
from bookkit import checked, load_snippet_module, md_table, show_source, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

print(show_source(unbroadcast_f))
print()
print(show_source(metadata))

targets = {
    "scalar bias": helpers.SCALAR_BIAS,
    "vector bias": helpers.VECTOR_BIAS,
    "row bias": helpers.ROW_BIAS,
    "complex vector": np.array([1 + 2j, 3 - 1j]),
}
rows = []
for name, target in targets.items():
    shape, ndim, dtype, iscomplex = metadata(target)
    # Each field against NumPy's own description of the value.
    rows.append([
        text("{name} {value}", name=name, value=helpers.given_value(target)),
        helpers.shape_cell(shape, np.shape(target)),
        checked(ndim, against=np.ndim(target)),
        checked(str(dtype), against=str(np.asarray(target).dtype), shown_as=helpers.code),
        checked(iscomplex, against=bool(np.iscomplexobj(target)), shown_as=helpers.code),
    ])
print()
print(md_table(["target", "`shape`", "`ndim`", "`dtype`", "`iscomplex`"], rows))
