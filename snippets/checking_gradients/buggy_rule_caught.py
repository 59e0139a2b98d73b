"""A bug that hides on a trivial input: test rules on shapes where it would show."""

import numpy as np

import ad_core.numpy as anp
from ad_core.extend import defvjp, primitive
from ad_core.test_util import GradientCheckError, check_grads
from bookkit import md_table


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
        verdict, message = "passes", ""
    except GradientCheckError as error:
        verdict, message = "fails", str(error).splitlines()[0]
    rows.append([f"`{x.shape}`", x.size, verdict, f"`{message}`" if message else "—"])
    assert (verdict == "passes") == (x.size == 1)
print(md_table(["input shape", "size", "`check_grads`", "message"], rows))
