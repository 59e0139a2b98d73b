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

# 2. An index array passed as an argument is an input; one closed over is a constant, copied.
table = np.arange(12.0).reshape(4, 3)
fixed_ids = np.array([0, 1])


def with_fixed(table):
    return anp.sum(table[fixed_ids])


def with_argument(table, ids):
    return anp.sum(table[ids])


as_input, as_constant = stage(with_argument), stage(with_fixed)
as_input(table, np.array([0, 1]))
as_constant(table)
fixed_ids[:] = [2, 3]  # changed in place, after staging
new_rows = as_input(table, np.array([2, 3]))
old_rows = as_constant(table)
print(collapsible(
    "2. `with_fixed` closes over its token ids, `with_argument` takes them as an argument. "
    "After staging both, the caller writes new ids into `fixed_ids` in place and passes the "
    "same new ids to `with_argument`. Which one sees them?",
    text("Only `with_argument`: its ids are an input of the program, and it sums the new rows "
         "({new}). The program of `with_fixed` holds a copy of the ids it was staged with, so it "
         "still sums the old rows ({old}), while an eager call of `with_fixed` now gives {eager}. "
         "To see new values, pass the array as an argument.",
         new=checked(float(new_rows), against=float(table[2:].sum())),
         old=checked(float(old_rows), against=float(table[:2].sum())),
         eager=checked(float(with_fixed(table)), against=float(table[2:].sum()))),
))

# 3. One choice, written with where and with if: the first stages, the second is refused.
def relu_where(s):
    return anp.where(s > 0, s, 0.0)


def relu_if(s):
    return s if s > 0 else 0.0


scalars = [np.float64(-1.5), np.float64(2.0)]
assert all(np.array_equal(relu_where(s), relu_if(s)) for s in scalars)  # the same function, eagerly
try:
    stage(relu_if)(scalars[0])
except StagingError as error:
    message = str(error)
refused = "bool()" in message
staged_where = stage(relu_where)
print(collapsible(
    "3. `relu_where(s)` is `anp.where(s > 0, s, 0.0)`, `relu_if(s)` is `s if s > 0 else 0.0`: "
    "the same choice, and eagerly the same values. Why does the first stage while the second is "
    "refused?",
    text("`where` is a primitive: the comparison and the choice are calls in the program, "
         "replayed on every input (one program gives {neg} and {pos} here). `if` asks Python for "
         "a truth value at staging time, which a replay could not change; staging refuses it: "
         "{refused}.",
         neg=checked(float(staged_where(scalars[0])), against=max(float(scalars[0]), 0.0)),
         pos=checked(float(staged_where(scalars[1])), against=max(float(scalars[1]), 0.0)),
         refused=checked(refused and staged_where.stagings == 1, against=True, shown_as=yes_no))
    + "\n\n" + observed(message.split(": cannot")[0] + ": cannot stage this function ..."),
))
