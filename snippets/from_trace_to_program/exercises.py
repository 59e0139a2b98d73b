"""Self-test for the chapter on staging; every answer is computed and checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import StagingError, grad, stage
from bookkit import checked, collapsible, given, observed, text, yes_no

# 1. A new shape retraces; a new value does not.
staged = stage(grad(lambda x: anp.sum(anp.sin(x) ** 2)))
staged(np.ones(3))
staged(np.full(3, 2.0))
after_same_shape = staged.stagings
staged(np.ones(5))
print(collapsible(
    text("1. A staged gradient is called on an array of shape {a}, then on another of shape {a}, "
         "then on one of shape {b}. How often does it trace?",
         a=given((3,)), b=given((5,))),
    text("Once for each cache key: {first} trace after the first two calls, {second} after the "
         "third, because the shape is part of the key and the values are not.",
         first=checked(after_same_shape, against=len({(3,)})),
         second=checked(staged.stagings, against=len({(3,), (5,)}))),
))

# 2. An index array passed as an argument is an input; one closed over is a constant.
table = np.arange(12.0).reshape(4, 3)
fixed_ids = np.array([0, 1])


def with_fixed(table):
    return anp.sum(table[fixed_ids])


def with_argument(table, ids):
    return anp.sum(table[ids])


as_input = stage(with_argument)
as_input(table, np.array([0, 1]))
new_rows = as_input(table, np.array([2, 3]))
print(collapsible(
    "2. `with_fixed` closes over its token ids, `with_argument` takes them as an argument. "
    "After staging both, which one sees new ids?",
    text("Only `with_argument`: its ids are an input of the program, and with new ids it sums "
         "new rows ({sum}). The ids `with_fixed` closes over are a constant of its program: "
         "{constant}.",
         sum=checked(float(new_rows), against=float(table[2:].sum())),
         constant=checked(any(value is fixed_ids for value in
                              stage(with_fixed).program(table).constants.values()),
                          against=True, shown_as=yes_no)),
))

# 3. A value-dependent choice written with where stages; the same choice written with if does not.
def relu_where(x):
    return anp.sum(anp.where(x > 0, x, 0.0))


def relu_if(x):
    return anp.sum(x) if anp.sum(x) > 0 else anp.sum(x * 0.0)


x = np.array([-1.0, 2.0, -3.0])
try:
    stage(relu_if)(x)
except StagingError as error:
    message = str(error)
refused = "bool()" in message
print(collapsible(
    "3. Why does `relu_where` stage while `relu_if` is refused?",
    text("`where` is a primitive: the comparison and the choice are calls in the program, "
         "replayed on every input ({value} here). `if` asks Python for a truth value at staging "
         "time, which a replay could not change; staging refuses it: {refused}.",
         value=checked(float(stage(relu_where)(x)), against=float(np.maximum(x, 0).sum())),
         refused=checked(refused, against=True, shown_as=yes_no))
    + "\n\n" + observed(message.split(": cannot")[0] + ": cannot stage this function ..."),
))
