"""The live source of unbroadcast_f, and what the closure it returns does to each example."""

import numpy as np

from ad_core.numpy.vjps import unbroadcast_f
from bookkit import assert_shape_then_close, load_snippet_module, md_table, show_source

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

print(show_source(unbroadcast_f))

examples = [
    ("`b = 2.0`", helpers.SCALAR_BIAS, helpers.SCALAR_X.shape),
    ("`b = [10, 20, 30]`", helpers.VECTOR_BIAS, helpers.MATRIX.shape),
    ("`b = [[10, 20, 30]]`", helpers.ROW_BIAS, helpers.MATRIX.shape),
]
rows = []
for name, target, output_shape in examples:
    # --8<-- [start:closure]
    # add's rule for b: the identity, then the reduction.
    vjp_for_b = unbroadcast_f(target, lambda g: g)
    # What the backward pass will hand it:
    g = np.ones(output_shape)
    contribution = vjp_for_b(g)
    # --8<-- [end:closure]
    assert_shape_then_close(np.asarray(contribution),
                            np.full(np.shape(target), g.size / np.size(target)))
    rows.append([name, helpers.shape_cell(g.shape), helpers.value_cell(contribution),
                 helpers.shape_cell(np.shape(contribution))])

print()
print(md_table(["target", "`g` (ones) shape", "`vjp_for_b(g)`", "shape"], rows))
