"""Two routes to the same cotangent: make_vjp with a ones cotangent, and grad of a sum."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.inspect import record
from bookkit import assert_shape_then_close, load_snippet_module, md_table

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

examples = [
    ("scalar bias", helpers.SCALAR_X, helpers.SCALAR_BIAS),
    ("vector bias", helpers.MATRIX, helpers.VECTOR_BIAS),
    ("row bias", helpers.MATRIX, helpers.ROW_BIAS),
    ("column bias", helpers.MATRIX, helpers.COLUMN_BIAS),
]


# --8<-- [start:routes]
def both_routes(data, bias):
    # Route 1: trace the vector-valued function, inject ones yourself.
    with record() as through_vjp:
        vjp, output = make_vjp(lambda b: data + b)(bias)
        from_vjp = vjp(np.ones_like(output))
    # Route 2: the VJP of sum makes the ones.
    with record() as through_grad:
        from_grad = grad(lambda b: anp.sum(data + b))(bias)
    return from_vjp, from_grad, through_vjp, through_grad
# --8<-- [end:routes]


rows = []
for name, data, bias in examples:
    from_vjp, from_grad, through_vjp, through_grad = both_routes(data, bias)
    assert_shape_then_close(np.asarray(from_vjp), np.asarray(from_grad))
    assert np.shape(from_grad) == np.shape(bias)
    entered_vjp = [e for e in helpers.unbroadcast_events(through_vjp.events)
                   if e.detail["stage"] == "enter"]
    entered_grad = [e for e in helpers.unbroadcast_events(through_grad.events)
                    if e.detail["stage"] == "enter"]
    # Both routes make exactly one unbroadcast call, on the same array.
    assert len(entered_vjp) == len(entered_grad) == 1
    assert_shape_then_close(entered_vjp[0].value, entered_grad[0].value)
    rows.append([
        name,
        helpers.shape_cell(np.shape(bias)),
        helpers.value_cell(entered_grad[0].value),
        helpers.value_cell(from_vjp),
        helpers.value_cell(from_grad),
        helpers.shape_cell(np.shape(from_grad)),
    ])

print(md_table(
    ["example", "`b.shape`", "`x` entering `unbroadcast` (both routes)",
     "route 1: `make_vjp`, ones", "route 2: `grad` of `sum`", "shape"],
    rows,
))
print()
print(
    f"In all {len(examples)} examples the two routes hand `unbroadcast` the same array and get "
    "the same cotangent back, with the shape of `b`. The routes differ only in who creates the "
    "all-ones cotangent: you, or the VJP of `sum`."
)
