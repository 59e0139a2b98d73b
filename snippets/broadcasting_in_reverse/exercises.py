"""Self-test: the questions of the chapter, each answered by running the engine."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.core import backward_pass
from ad_core.recorder import record
from bookkit import (
    central_differences,
    checked,
    collapsible,
    given,
    load_snippet_module,
    md_table,
    text,
    yes_no,
)
from bookkit.source import source_line

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
V, S, GS = helpers.value_cell, helpers.shape_cell, helpers.given_shape
rng = np.random.default_rng(17)
matrix = helpers.MATRIX
# The versions the answer names (version numbers, not values the page computes); the chapter's
# test runs the installed PyTorch and HIPS/autograd and checks these are the versions there.
TORCH, AUTOGRAD_VERSION = given("2.13"), given("1.9.1")
AUTOGRAD = "https://github.com/HIPS/autograd/blob/v1.9.1/autograd"


def recorded_grad(loss, argument):
    """The gradient and the `unbroadcast` stages the engine ran to produce it."""
    with record() as recording:
        gradient = grad(loss)(argument)
    return gradient, recording.events


def summed_axes(events, stage):
    return [e.detail["axis"] for e in helpers.unbroadcast_events(events) if e.detail["stage"] == stage]


def model_axes(entering, target, stage):
    """The axes the chapter's rule sums at `stage` (plain NumPy, `helpers.reduction_model`)."""
    return [axis for name, axis, _ in helpers.reduction_model(entering, target) if name == stage]


def oracle(loss, argument):
    return central_differences(lambda a: float(loss(a)), argument)


questions = []

# The seed of sum(matrix + b): the all-ones cotangent of the output. (A (1, 3) bias on the
# (2, 3) matrix is the keepdims state table on the page; question 1 asks for the column bias.)
ones = np.ones(matrix.shape)

# The column bias.
column = helpers.COLUMN_BIAS
gradient, events = recorded_grad(lambda b: anp.sum(matrix + b), column)
questions.append(
    (
        text(
            "The keepdims state table above adds a row bias of shape {row}. Predict "
            "`grad(lambda b: anp.sum(matrix + b))(b)` for a column bias of shape {column} and "
            "`matrix` of shape {matrix}.",
            row=GS(helpers.ROW_BIAS.shape),
            column=GS(column.shape),
            matrix=GS(matrix.shape),
        ),
        text(
            "Each entry of `b` is copied across a row of {n} entries. `unbroadcast` sums axis {axis} "
            "with `keepdims=True`: the gradient is {gradient} with shape {shape}.",
            n=given(matrix.shape[1]),
            axis=checked(
                summed_axes(events, "sum_keepdims"),
                against=model_axes(ones, column, "sum_keepdims"),
                shown_as=lambda axes: ", ".join(map(str, axes)),
            ),
            gradient=V(gradient, oracle(lambda b: np.sum(matrix + b), column), rtol=1e-8),
            shape=S(gradient.shape, column.shape),
        ),
    )
)

# Why the reduction lives in the rules, when backward_pass knows every parent's shape.
W = np.arange(9.0).reshape(3, 3)
b = helpers.VECTOR_BIAS
G = rng.integers(-3, 4, size=(3, 3)).astype(float)
y = rng.integers(-3, 4, size=(3, 3, 3)).astype(float)
G3 = rng.integers(-3, 4, size=(3, 3, 3)).astype(float)
x_square = rng.integers(-3, 4, size=(3, 3)).astype(float)


def sum_to_shape(contribution, shape):
    """What an engine could do with shapes alone: sum a contribution down to its parent's shape
    by NumPy's rule (align from the right; sum the leading axes, then the stretched ones)."""
    contribution = contribution.sum(axis=tuple(range(contribution.ndim - len(shape))))
    stretched = tuple(axis for axis, size in enumerate(shape) if size == 1 and contribution.shape[axis] != 1)
    return contribution.sum(axis=stretched, keepdims=True)


# (function of the argument, the argument, the output cotangent, the rule's unreduced
#  contribution, and what that shapes-only sum works out to, written as the explicit sum).
cases = [
    ("`W + b`", lambda b: W + b, b, G, G, G[0] + G[1] + G[2]),
    ("`W * b`", lambda b: W * b, b, G, G * W, (G * W)[0] + (G * W)[1] + (G * W)[2]),
    (
        "`einsum('i...j,i...j->i...j', x, y)`",
        lambda x: anp.einsum("i...j,i...j->i...j", x, y),
        x_square,
        G3,
        G3 * y,
        (G3 * y)[0] + (G3 * y)[1] + (G3 * y)[2],
    ),
]
table = []
for name, function, argument, cotangent, unreduced, explicit in cases:
    vjp, output = make_vjp(function)(argument)
    exact = vjp(cotangent)
    # The VJP from central differences of <cotangent, f(argument)>: no rule involved.
    numeric = central_differences(lambda a, f=function, g=cotangent: float(np.sum(g * f(a))), argument)
    guess = sum_to_shape(unreduced, np.shape(argument))
    table.append(
        [
            name,
            V(exact, numeric, rtol=1e-8, atol=1e-8),
            V(guess, explicit),
            checked(
                bool(np.allclose(guess, exact)),
                against=bool(np.allclose(guess, numeric, atol=1e-6)),
                shown_as=yes_no,
            ),
        ]
    )
_, check_line, _ = source_line(backward_pass, r"!= parent\.shape")
questions.append(
    (
        "`backward_pass` knows the shape of every parent. Why, then, does the reduction to the "
        "input's shape live in the NumPy rules (`unbroadcast`) and not in `backward_pass`?",
        text(
            "Not for lack of information: `backward_pass` checks every contribution against "
            "`parent.shape` (line {line} of `ad_core/core.py`). For NumPy's arithmetic broadcasting, "
            "shapes would even be enough: summing a rule's unreduced contribution down to the "
            "parent's shape by NumPy's rule (align from the right, sum the leading axes, then the "
            "stretched ones) gives the engine's VJP for `W + b` and `W * b` below. PyTorch {torch}'s "
            "engine makes that choice: it sums a gradient whose shape the input's shape broadcasts "
            "to, and refuses any other mismatch. "
            "<!-- tested: tests/snippets/test_broadcasting_in_reverse.py::"
            "test_pytorch_engine_sums_a_gradient_the_input_broadcasts_to -->",
            torch=TORCH,
            line=checked(
                check_line,
                against=backward_pass.__code__.co_firstlineno
                + next(
                    i
                    for i, source in enumerate(__import__("inspect").getsourcelines(backward_pass)[0])
                    if "!= parent.shape" in source
                ),
            ),
        )
        + "\n\n"
        + md_table(
            ["function", "engine's VJP", "shapes-only sum of the rule's contribution", "right?"], table
        )
        + "\n"
        + text(
            "Here the reduction lives in the rules by design, as in HIPS/autograd {version}, whose "
            "[`backward_pass`]({autograd}/core.py#L25-L32) only adds what rules return: each rule "
            "owns its primitive's broadcast semantics, and not every primitive broadcasts by aligning "
            "shapes from the right. In `einsum('i...j,i...j->i...j', x, y)` with `x` of shape "
            "{x_shape} and `y` of shape {y_shape}, the copies of `x` run along the middle axis, where "
            "`...` stands, and the shapes-only sum over the leading axis has the right shape and the "
            "wrong numbers. HIPS/autograd {version}'s einsum rule passes the position of `...` to its "
            "`unbroadcast` as `broadcast_idx` "
            "([`unbroadcast_einsum`]({autograd}/numpy/numpy_vjps.py#L900-L908)); "
            "`ad_core`'s `grad_einsum` writes the cotangent straight into the operand's own "
            "subscripts. And with the reduction in the rules, a contribution of the wrong shape is a "
            "bug that the engine reports (see [Writing VJP rules](vjp-rules.md)) rather than one it "
            "would sum away in silence.",
            autograd=AUTOGRAD,
            version=AUTOGRAD_VERSION,
            x_shape=GS(x_square.shape),
            y_shape=GS(y.shape),
        ),
    )
)

# Broadcasting and fan-out both add contributions.
once, events_once = recorded_grad(lambda b: anp.sum(matrix + b), b)
with record() as twice_recording:
    twice = grad(lambda b: anp.sum(matrix[0] + b) + anp.sum(matrix[1] + b))(b)
arrivals = [e for e in twice_recording.of_kind("accumulate") if e.node == 0]
questions.append(
    (
        "What do broadcasting and accumulation over several graph paths have in common?",
        text(
            "Both are the same sum: a value used in several places receives the sum of the "
            "contributions of all its uses. Broadcasting hides the copies inside one primitive, so "
            "the rule sums them (`unbroadcast`); writing the uses out makes them separate graph "
            "edges, so `backward_pass` sums them. `sum(matrix + b)` and `sum(matrix[0] + b) + "
            "sum(matrix[1] + b)` both give {once}: the first with {sums} sum inside `unbroadcast`, "
            "the second with {arrivals} contributions accumulated into `b`.",
            once=V(once, twice),
            sums=checked(
                len(summed_axes(events_once, "sum_leading")), against=len(model_axes(ones, b, "sum_leading"))
            ),
            arrivals=checked(len(arrivals), against=matrix.shape[0]),  # one per row written out
        ),
    )
)

# Both arguments broadcast.
x = np.arange(6.0).reshape(2, 3)
big_b = rng.standard_normal((4, 1, 3))
grad_b, events_b = recorded_grad(lambda b: anp.sum(x + b), big_b)
grad_x, events_x = recorded_grad(lambda x: anp.sum(x + big_b), x)
output_shape = np.broadcast_shapes(x.shape, big_b.shape)
cotangent = np.ones(output_shape)


def axes_text(axes, expected):
    return checked(axes, against=expected, shown_as=lambda v: ", ".join(map(str, v)) or "none")


questions.append(
    (
        text(
            "`x` has shape {x} and `b` has shape {b}. What is the shape of `x + b`, and what does "
            "`unbroadcast` do for each argument of `L = sum(x + b)`?",
            x=GS(x.shape),
            b=GS(big_b.shape),
        ),
        text(
            "The output has shape {shape}; both arguments were broadcast.\n\n",
            # NumPy's rule by hand: the slices of b, the rows of x, the shared last axis.
            shape=S(output_shape, (big_b.shape[0], x.shape[0], x.shape[1])),
        )
        + md_table(
            ["argument", "shape", "leading sums (axis)", "keepdims sums (axis)", "gradient entries"],
            [
                [
                    "`x`",
                    GS(x.shape),
                    axes_text(summed_axes(events_x, "sum_leading"), model_axes(cotangent, x, "sum_leading")),
                    axes_text(
                        summed_axes(events_x, "sum_keepdims"), model_axes(cotangent, x, "sum_keepdims")
                    ),
                    V(np.unique(grad_x), np.unique(np.round(oracle(lambda v: np.sum(v + big_b), x), 6))),
                ],
                [
                    "`b`",
                    GS(big_b.shape),
                    axes_text(
                        summed_axes(events_b, "sum_leading"), model_axes(cotangent, big_b, "sum_leading")
                    ),
                    axes_text(
                        summed_axes(events_b, "sum_keepdims"), model_axes(cotangent, big_b, "sum_keepdims")
                    ),
                    V(np.unique(grad_b), np.unique(np.round(oracle(lambda v: np.sum(x + v), big_b), 6))),
                ],
            ],
        )
        + text(
            "\nEach entry of `x` is used by the {slices} slices of `b`; each entry of `b` by the "
            "{rows} rows of `x`.",
            slices=given(big_b.shape[0]),
            rows=given(x.shape[0]),
        ),
    )
)

# Multiply: f(g) is not g.
grad_mul, events_mul = recorded_grad(lambda b: anp.sum(matrix * b), b)
entering = helpers.unbroadcast_events(events_mul)[0]
questions.append(
    (
        "For `L = sum(matrix * b)` with the vector bias, what array enters `unbroadcast`, and what "
        "comes out?",
        text(
            "The multiply rule passes `f = lambda g: x * g` to `unbroadcast_f`, so the local "
            "derivative is applied first: `x * g` = {entering} enters with shape {shape}. Then the "
            "rows are summed: {gradient}, shape {out_shape}.",
            entering=V(entering.value, matrix * ones),  # the seed of sum is all ones
            shape=S(entering.shape, matrix.shape),
            gradient=V(grad_mul, oracle(lambda b: np.sum(matrix * b), b), rtol=1e-8),
            out_shape=S(grad_mul.shape, b.shape),
        ),
    )
)

for number, (question, answer) in enumerate(questions, start=1):
    print(collapsible(text("{n}. ", n=given(number)) + question, answer))
