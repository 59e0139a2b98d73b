"""Self-test: the questions of the chapter, each answered by running the engine."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.inspect import record
from ad_core.numpy.vjps import unbroadcast
from bookkit import (
    assert_shape_then_close,
    collapsible,
    engine_index,
    fmt_array_inline,
    fmt_shape,
    load_snippet_module,
    md_table,
)

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")
C, S = helpers.value_cell, helpers.shape_cell
rng = np.random.default_rng(17)
matrix = helpers.MATRIX


def recorded_grad(loss, argument):
    """The gradient and the `unbroadcast` stages the engine ran to produce it."""
    with record() as recording:
        gradient = grad(loss)(argument)
    return gradient, recording.events


def summed_axes(events, stage):
    return [e.detail["axis"] for e in helpers.unbroadcast_events(events)
            if e.detail["stage"] == stage]


questions = []

# 1. The (1, 3) bias.
row = helpers.ROW_BIAS
gradient, events = recorded_grad(lambda b: anp.sum(matrix + b), row)
assert summed_axes(events, "sum_leading") == [] and summed_axes(events, "sum_keepdims") == [0]
assert_shape_then_close(gradient, np.full(row.shape, 2.0))
questions.append((
    f"A bias of shape `{fmt_shape(row.shape)}` is added to a `{fmt_shape(matrix.shape)}` "
    "matrix. Which axes does the backward pass sum, and does it keep them?",
    f"Both shapes have {matrix.ndim} dimensions, so the `while` loop sums nothing. The `for` "
    f"loop finds size 1 at axis {summed_axes(events, 'sum_keepdims')[0]} of the target while "
    f"the cotangent has {matrix.shape[0]} there, so it sums that axis **with** `keepdims=True`. "
    f"The gradient of `sum(matrix + b)` is `{fmt_array_inline(gradient)}` with shape "
    f"`{fmt_shape(gradient.shape)}`. Without `keepdims` it would have shape "
    f"`{fmt_shape(np.ones(matrix.shape).sum(axis=0).shape)}`, which is not `b`'s space.",
))

# 2. Why unbroadcast is not in backward_pass: same shapes, different correct reductions.
W = np.arange(9.0).reshape(3, 3)
b = helpers.VECTOR_BIAS
G = rng.integers(-3, 4, size=(3, 3)).astype(float)
candidates = [
    ("`W + b`", lambda b: W + b),
    ("`W * b`", lambda b: W * b),
    ("`anp.reshape(b, (3, 1)) + W`", lambda b: anp.reshape(b, (3, 1)) + W),
]
shape_only_guess = G.sum(axis=0)           # all a generic engine could do with shapes alone
table = []
verdicts = []
for name, function in candidates:
    vjp, output = make_vjp(function)(b)
    exact = vjp(G)
    assert output.shape == G.shape and exact.shape == b.shape
    verdicts.append(bool(np.allclose(exact, shape_only_guess)))
    table.append([name, C(exact), C(shape_only_guess), "yes" if verdicts[-1] else "no"])
assert verdicts == [True, False, False]
index = engine_index()
callers = sorted(index.definitions[k].short_name
                 for k in index.called_by[index.key_of(unbroadcast)])
questions.append((
    "Why does `unbroadcast` live in the NumPy rules and not in the generic `backward_pass`?",
    f"`backward_pass` sees only shapes: here a `{fmt_shape(G.shape)}` cotangent `G` for a "
    f"`{fmt_shape(b.shape)}` input. The three functions below all have those shapes, and the "
    "right reduction differs for each. Only the primitive's rule knows how its input was "
    "laid out in its output.\n\n"
    + md_table(["function of `b`", "engine's VJP of `G`", "shape-only guess `G.sum(axis=0)`",
                "guess right?"], table)
    + f"\nThe rules also call `unbroadcast` in ways the engine could not guess: its callers "
    f"include {', '.join(f'`{c}`' for c in callers)}, which pass their own `broadcast_idx`. "
    "And the engine stays free of NumPy: it only adds what rules return.",
))

# 3. Broadcasting and fan-out both add contributions.
once, events_once = recorded_grad(lambda b: anp.sum(matrix + b), b)
with record() as twice_recording:
    twice = grad(lambda b: anp.sum(matrix[0] + b) + anp.sum(matrix[1] + b))(b)
arrivals = [e for e in twice_recording.of_kind("accumulate") if e.node == 0]
assert_shape_then_close(once, twice)
assert len(summed_axes(events_once, "sum_leading")) == 1 and len(arrivals) == 2
questions.append((
    "What do broadcasting and accumulation over several graph paths have in common?",
    "Both are the same sum: a value used in several places receives the sum of the "
    "contributions of all its uses. Broadcasting hides the copies inside one primitive, so "
    "the rule sums them (`unbroadcast`); writing the uses out makes them separate graph edges, "
    f"so `backward_pass` sums them. `sum(matrix + b)` and `sum(matrix[0] + b) + "
    f"sum(matrix[1] + b)` both give `{fmt_array_inline(once)}`: the first with "
    f"{len(summed_axes(events_once, 'sum_leading'))} sum inside `unbroadcast`, the second "
    f"with {len(arrivals)} contributions accumulated into `b`.",
))

# 4. The column bias.
column = helpers.COLUMN_BIAS
gradient, events = recorded_grad(lambda b: anp.sum(matrix + b), column)
assert summed_axes(events, "sum_keepdims") == [1]
assert_shape_then_close(gradient, np.full(column.shape, float(matrix.shape[1])))
questions.append((
    f"Predict `grad(lambda b: anp.sum(matrix + b))(b)` for a column bias of shape "
    f"`{fmt_shape(column.shape)}` and `matrix` of shape `{fmt_shape(matrix.shape)}`.",
    f"Each entry of `b` is copied across a row of {matrix.shape[1]} entries. `unbroadcast` "
    f"sums axis {summed_axes(events, 'sum_keepdims')[0]} with `keepdims=True`: the gradient "
    f"is `{fmt_array_inline(gradient)}` with shape `{fmt_shape(gradient.shape)}`.",
))

# 5. Both arguments broadcast.
x = np.arange(6.0).reshape(2, 3)
big_b = rng.standard_normal((4, 1, 3))
grad_b, events_b = recorded_grad(lambda b: anp.sum(x + b), big_b)
grad_x, events_x = recorded_grad(lambda x: anp.sum(x + big_b), x)
output_shape = np.broadcast_shapes(x.shape, big_b.shape)
assert_shape_then_close(grad_b, np.full(big_b.shape, float(x.shape[0])))
assert_shape_then_close(grad_x, np.full(x.shape, float(big_b.shape[0])))
questions.append((
    f"`x` has shape `{fmt_shape(x.shape)}` and `b` has shape `{fmt_shape(big_b.shape)}`. "
    "What is the shape of `x + b`, and what does `unbroadcast` do for each argument of "
    "`L = sum(x + b)`?",
    f"The output has shape `{fmt_shape(output_shape)}`; both arguments were broadcast.\n\n"
    + md_table(
        ["argument", "shape", "leading sums (axis)", "keepdims sums (axis)", "gradient entries"],
        [
            ["`x`", S(x.shape), ", ".join(map(str, summed_axes(events_x, "sum_leading"))),
             ", ".join(map(str, summed_axes(events_x, "sum_keepdims"))) or "none",
             C(np.unique(grad_x))],
            ["`b`", S(big_b.shape),
             ", ".join(map(str, summed_axes(events_b, "sum_leading"))) or "none",
             ", ".join(map(str, summed_axes(events_b, "sum_keepdims"))), C(np.unique(grad_b))],
        ],
    )
    + f"\nEach entry of `x` is used by the {big_b.shape[0]} slices of `b`; each entry of `b` "
    f"by the {x.shape[0]} rows of `x`.",
))

# 6. Multiply: f(g) is not g.
grad_mul, events_mul = recorded_grad(lambda b: anp.sum(matrix * b), b)
entering = helpers.unbroadcast_events(events_mul)[0]
assert_shape_then_close(entering.value, matrix * np.ones(matrix.shape))
assert_shape_then_close(grad_mul, matrix.sum(axis=0))
questions.append((
    "For `L = sum(matrix * b)` with the vector bias, what array enters `unbroadcast`, and what "
    "comes out?",
    "The multiply rule passes `f = lambda g: x * g` to `unbroadcast_f`, so the local "
    f"derivative is applied first: `x * g = {fmt_array_inline(entering.value)}` "
    f"enters with shape `{fmt_shape(entering.shape)}`. Then the rows are summed: "
    f"`{fmt_array_inline(grad_mul)}`, shape `{fmt_shape(grad_mul.shape)}`.",
))

# 7. Why sum(x + b) cannot catch the wrong axis on square data.
ones = np.ones((3, 3))
weights = np.arange(1.0, 10.0).reshape(3, 3)
assert np.allclose(ones.sum(axis=0), ones.sum(axis=1))
assert not np.allclose(weights.sum(axis=0), weights.sum(axis=1))
questions.append((
    "A test checks a rule with `L = sum(x + b)` on a square `x`. Why can it not catch a rule "
    "that sums the wrong axis, and what loss can?",
    f"`sum` seeds an all-ones cotangent, and for all ones the row sums and column sums agree "
    f"(`{fmt_array_inline(ones.sum(axis=0))}` both ways). Any cotangent that is not symmetric "
    f"separates them: with weights `w = arange(1, 10).reshape(3, 3)` the loss "
    f"`sum(w * (x + b))` seeds `w`, whose column sums `{fmt_array_inline(weights.sum(axis=0))}` and "
    f"row sums `{fmt_array_inline(weights.sum(axis=1))}` differ. `check_grads` uses random "
    "directions for exactly this reason.",
))

# 8. Complex to real.
z = np.array([1 + 2j, 3 - 1j])
grad_real, events_real = recorded_grad(lambda b: anp.sum(anp.abs(z + b) ** 2), 0.5)
stages_real = [e.detail["stage"] for e in helpers.stages_inside(events_real, "add")]
assert "real" in stages_real and not np.iscomplexobj(grad_real)
questions.append((
    "A real scalar `b` is added to a complex vector `z`, and `L = sum(abs(z + b) ** 2)`. What "
    "dtype does `dL/db` have, and which stage of `unbroadcast` decides it?",
    f"The stages run are {', '.join(f'`{s}`' for s in stages_real)}. The `real` stage drops the "
    f"imaginary part because `metadata(b)` says `iscomplex` is False; the gradient "
    f"`{fmt_array_inline(grad_real)}` has dtype `{np.result_type(grad_real)}`.",
))

for number, (question, answer) in enumerate(questions, start=1):
    print(collapsible(f"{number}. {question}", answer))
