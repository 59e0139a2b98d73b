"""A bug that hides on a trivial input: test rules on shapes where it would show."""

import math

import numpy as np

import ad_core.numpy as anp
from ad_core.extend import defvjp, primitive
from ad_core.test_util import GradientCheckError, check_grads
from bookkit import checked, given, md_table


# --8<-- [start:buggy]
@primitive
def my_mean(x):
    return np.mean(x)


defvjp(my_mean, lambda ans, x: lambda g: g * anp.ones_like(x))  # forgot: / x.size
# --8<-- [end:buggy]

rows = []
for shape in [(), (1,), (4,), (2, 3)]:
    x = np.random.default_rng(11).standard_normal(shape)
    try:
        check_grads(my_mean, modes=("rev",), order=1)(x)
        passes, message = True, ""
    except GradientCheckError as error:
        passes, message = False, str(error).splitlines()[0]
    rows.append([
        given(shape),
        checked(x.size, against=math.prod(shape)),
        # The rule is wrong by a factor of x.size: invisible exactly when that factor is 1.
        checked(passes, against=math.prod(shape) == 1, shown_as=lambda p: "passes" if p else "fails"),
        f"`{message}`" if message else "—",
    ])
print(md_table(["input shape", "size", "`check_grads`", "message"], rows))
