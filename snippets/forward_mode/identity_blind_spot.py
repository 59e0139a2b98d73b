"""What the inner-product identity cannot see: the same wrong rule in both modes passes it."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_jvp, make_vjp
from ad_core.extend import defjvp, defvjp, primitive
from ad_core.test_util import GradientCheckError, check_grads, numerical_jvp
from bookkit import checked, md_table, yes_no


# --8<-- [start:wrong_both]
@primitive
def my_sin(x):
    return np.sin(x)


# The same mistake in both modes: the derivative of sin x is cos x, not 2 cos x.
defvjp(my_sin, lambda ans, x: lambda g: g * 2 * anp.cos(x))
defjvp(my_sin, lambda g, ans, x: g * 2 * anp.cos(x))
# --8<-- [end:wrong_both]


def identity_gap(f, x, u, v):
    """|<u, J v> - <J^T u, v>| with J v from forward mode and J^T u from reverse mode."""
    _, jv = make_jvp(f)(x)(v)
    jt_u = make_vjp(f)(x)[0](u)
    return abs(float(np.dot(u, jv)) - float(np.dot(jt_u, v))), float(np.dot(u, jv))


def check_passes(f, x, mode):
    try:
        check_grads(f, modes=(mode,), order=1)(x)
    except GradientCheckError:
        return False
    return True


rng = np.random.default_rng(88)
x, u, v = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
by_differences = float(np.dot(u, numerical_jvp(np.sin, x, v)))  # the rule plays no part here
rows = []
for name, f, right in [("`anp.sin` (the engine's rule)", anp.sin, True),
                       ("`my_sin` (`2 cos x` in both modes)", my_sin, False)]:
    gap, forward = identity_gap(f, x, u, v)
    holds = gap <= 1e-13 * max(1.0, abs(forward))  # rounding only
    rows.append([
        name,
        # Both sides run the rule given for that mode; they agree whether or not it is right.
        checked(holds, against=True, shown_as=yes_no),
        # Central differences of np.sin: the right rule agrees with them, the doubled one not.
        checked(bool(np.isclose(forward, by_differences, rtol=1e-6, atol=1e-6)), against=right,
                shown_as=yes_no),
        checked(check_passes(f, x, "fwd"), against=right, shown_as=lambda p: "passes" if p else "fails"),
        checked(check_passes(f, x, "rev"), against=right, shown_as=lambda p: "passes" if p else "fails"),
    ])
print(md_table(
    ["primitive", r"$\langle u, Jv\rangle = \langle J^\top u, v\rangle$ holds",
     "$\\langle u, Jv\\rangle$ matches central differences",
     "`check_grads(modes=(\"fwd\",))`", "`check_grads(modes=(\"rev\",))`"],
    rows,
))
