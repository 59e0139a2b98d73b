"""The wrong-axis mistake: a rule that sums axis -1, not axis 0, and the checks that catch it."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import assert_shape_then_close, load_snippet_module, md_table, observed, text
from bookkit.checks import central_differences
from bookkit.formatting import _fmt_shape as fmt_shape

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))


# --8<-- [start:wrong_rule]
@primitive
def add_wrong_axis(x, b):
    return x + b


# Tempting: "b runs along the last axis, so sum the last axis".
# It sums the wrong one.
defvjp(add_wrong_axis, None,
       lambda ans, x, b: lambda g: anp.sum(g, axis=-1))
# --8<-- [end:wrong_rule]

wide = helpers.MATRIX                                  # (2, 3): the wrong sum has 2 entries
square = np.arange(9.0).reshape(3, 3)                  # (3, 3): the wrong sum has 3 entries
b = helpers.VECTOR_BIAS
weights = np.arange(1.0, 10.0).reshape(3, 3)           # a cotangent that is not all ones

# 1. Wide data: the shape is wrong. Shape checks fail before any value is compared.
# What the rule returns, called directly (through grad the engine refuses it, below).
wrong_wide = add_wrong_axis.vjps[1](None, wide, b)(np.ones(wide.shape))
right_wide = grad(lambda b: anp.sum(wide + b))(b)
try:
    assert_shape_then_close(wrong_wide, right_wide)
except AssertionError as error:
    shape_message = str(error).splitlines()[0]
else:
    raise AssertionError("the shape check accepted a (2,) gradient for a (3,) bias")
try:
    grad(lambda b: anp.sum(add_wrong_axis(wide, b)))(b)
except ValueError as error:
    engine_message = str(error)
else:
    raise AssertionError("backward_pass accepted a (2,) cotangent for a (3,) input")
assert fmt_shape(wrong_wide.shape) in engine_message

# 2. Square data, L = sum(...): the cotangent is all ones, and the wrong axis gives the right
#    numbers by coincidence. Nothing can catch what the test does not exercise.
lucky_wrong = grad(lambda b: anp.sum(add_wrong_axis(square, b)))(b)
lucky_right = grad(lambda b: anp.sum(square + b))(b)
assert_shape_then_close(lucky_wrong, lucky_right)


# 3. Square data, weighted loss: shapes agree, values do not. Finite differences catch it.
def weighted_loss_wrong(b):
    return anp.sum(weights * add_wrong_axis(square, b))


def weighted_loss_right(b):
    return anp.sum(weights * (square + b))


wrong_square = grad(weighted_loss_wrong)(b)
right_square = grad(weighted_loss_right)(b)
fd_square = central_differences(
    lambda b: np.sum(weights * (square + b)), b)
assert wrong_square.shape == right_square.shape == fd_square.shape
assert_shape_then_close(right_square, fd_square, rtol=1e-8)
assert not np.allclose(wrong_square, fd_square)
try:
    check_grads(weighted_loss_wrong, modes=("rev",), order=1)(b)
except AssertionError as error:
    check_message = str(error)
else:
    raise AssertionError("check_grads accepted the wrong-axis rule")
check_grads(weighted_loss_right, modes=("rev",), order=1)(b)  # the correct rule passes

V, S = helpers.value_cell, helpers.shape_cell
fd_wide = central_differences(lambda b: np.sum(wide + b), b)
fd_lucky = central_differences(lambda b: np.sum(square + b), b)


def cell(value, against, shape, **tolerance):
    return text("{value} {shape}", value=V(value, against, **tolerance), shape=S(np.shape(value), shape))


print(md_table(
    ["case", "data shape", "loss", "wrong rule gives", "correct gradient", "caught by"],
    [
        # The wrong rule sums each row of the ones: one entry per row, each the row's length.
        ["wide data", helpers.given_shape(wide.shape), "`sum(x + b)`",
         cell(wrong_wide, np.full(wide.shape[0], float(wide.shape[1])), (wide.shape[0],)),
         cell(right_wide, fd_wide, b.shape, rtol=1e-8), "shape check (engine and test)"],
        ["square data", helpers.given_shape(square.shape), "`sum(x + b)`",
         cell(lucky_wrong, fd_lucky, b.shape, rtol=1e-8),
         cell(lucky_right, fd_lucky, b.shape, rtol=1e-8), "nothing: right by coincidence"],
        # With the weights as cotangent, the wrong rule returns their row sums.
        ["square data, weighted", helpers.given_shape(square.shape), "`sum(w * (x + b))`",
         cell(wrong_square, [sum(row) for row in weights], b.shape),
         cell(right_square, fd_square, b.shape, rtol=1e-8), "finite differences, `check_grads`"],
    ],
))
print()
print("With wide data, the test helper `assert_shape_then_close` stops at the shape:")
print()
print(observed(helpers.wrap_message(f"AssertionError: {shape_message}")))
print()
print("and the engine itself refuses the contribution inside `backward_pass`:")
print()
print(observed(helpers.wrap_message(f"ValueError: {engine_message}")))
print()
print(
    "With the weighted loss, `check_grads` compares the rule's $\\langle J^\\top u, v\\rangle$ "
    "with central differences along a random direction $v$; the shapes are fine, the numbers "
    "are not:"
)
print()
print(observed(helpers.wrap_message(f"AssertionError: {check_message}")))
