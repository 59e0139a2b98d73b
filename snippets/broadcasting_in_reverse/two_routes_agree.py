"""Two routes to the same cotangent: make_vjp with a ones cotangent, and grad of a sum."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.recorder import record
from bookkit import central_differences, given, load_snippet_module, md_table, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

examples = [
    ("scalar bias", helpers.SCALAR_X, helpers.SCALAR_BIAS),
    ("vector bias", helpers.MATRIX, helpers.VECTOR_BIAS),
    ("row bias", helpers.MATRIX, helpers.ROW_BIAS),
    ("column bias", helpers.MATRIX, helpers.COLUMN_BIAS),
]


# --8<-- [start:routes]
def both_routes(data, bias):
    # First route: trace the vector-valued function, inject ones yourself.
    with record() as through_vjp:
        vjp, output = make_vjp(lambda b: data + b)(bias)
        from_vjp = vjp(np.ones_like(output))
    # Second route: the VJP of sum makes the ones.
    with record() as through_grad:
        from_grad = grad(lambda b: anp.sum(data + b))(bias)
    return from_vjp, from_grad, through_vjp, through_grad
# --8<-- [end:routes]


rows = []
for name, data, bias in examples:
    from_vjp, from_grad, through_vjp, through_grad = both_routes(data, bias)
    entered_vjp = [e for e in helpers.unbroadcast_events(through_vjp.events)
                   if e.detail["stage"] == "enter"]
    entered_grad = [e for e in helpers.unbroadcast_events(through_grad.events)
                    if e.detail["stage"] == "enter"]
    # Both routes make exactly one unbroadcast call, on the same array.
    assert len(entered_vjp) == len(entered_grad) == 1
    fd = central_differences(lambda b, data=data: np.sum(data + b), bias)
    output_shape = np.broadcast_shapes(np.shape(data), np.shape(bias))
    rows.append([
        name,
        helpers.given_shape(np.shape(bias)),
        helpers.value_cell(entered_grad[0].value, entered_vjp[0].value),
        helpers.value_cell(from_vjp, fd, rtol=1e-8),
        helpers.value_cell(from_grad, from_vjp),
        helpers.shape_cell(np.shape(from_grad), np.shape(bias)),
    ])
    # The array that enters is add's identity VJP of the ones: ones of the output's shape.
    np.testing.assert_array_equal(entered_grad[0].value, np.ones(output_shape))

print(md_table(
    ["example", "`b.shape`", "`x` entering `unbroadcast` (both routes)",
     "first route: `make_vjp`, ones", "second route: `grad` of `sum`", "shape"],
    rows,
))
print()
print(text(
    "In all {n} examples the two routes hand `unbroadcast` the same array and get the same "
    "cotangent back, with the shape of `b`. The routes differ only in who creates the all-ones "
    "cotangent: you, or the VJP of `sum`.",
    n=given(len(examples)),
))
