"""The live source of unbroadcast_f, and what the closure it returns does to each example."""

from pathlib import Path

import numpy as np

from ad_core.numpy.vjps import unbroadcast_f
from bookkit import load_snippet_module, md_table, show_source, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

print(show_source(unbroadcast_f))

examples = [
    ("scalar bias", helpers.SCALAR_BIAS, helpers.SCALAR_X.shape),
    ("vector bias", helpers.VECTOR_BIAS, helpers.MATRIX.shape),
    ("row bias", helpers.ROW_BIAS, helpers.MATRIX.shape),
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
    # Each entry of the target met g.size / target.size ones: the uses of each entry.
    rows.append([
        text("{name} {value}", name=name, value=helpers.given_value(target)),
        helpers.given_shape(g.shape),
        helpers.value_cell(contribution, np.full(np.shape(target), g.size / np.size(target))),
        helpers.shape_cell(np.shape(contribution), np.shape(target)),
    ])

print()
print(md_table(["target", "`g` (ones) shape", "`vjp_for_b(g)`", "shape"], rows))
