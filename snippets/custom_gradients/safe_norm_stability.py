"""The norm's gradient at the origin: nan through the body's rules and through the formula
x / |x| written as a rule; the guarded rule returns the subgradient 0. Second order and forward mode."""

from pathlib import Path

import numpy as np

from ad_core import grad, hessian_vector_product, jacobian, make_jvp
from bookkit import checked, given, load_snippet_module, md_table, text

rules = load_snippet_module(Path(__file__).with_name("_rules.py"))


def closed_form(x):  # x / |x| away from the origin, and the guarded rule's 0 at it
    n = np.linalg.norm(x)
    return x / n if n > 0 else np.zeros_like(x)


points = [np.array([3.0, 4.0]), np.array([1e-3, 0.0]), np.array([0.0, 0.0])]
rows = []
with np.errstate(divide="ignore", invalid="ignore"):
    for x in points:
        gradients = [grad(f)(x) for f in (rules.norm, rules.unguarded_norm, rules.safe_norm)]
        assert all(g.shape == x.shape for g in gradients)
        at_origin = not np.any(x)
        # Away from the origin all three are the derivative; at it, 0 * inf in the body's chain
        # rule and 0 / 0 in the formula are both nan.
        expected = [np.full(2, np.nan) if at_origin else closed_form(x)] * 2 + [closed_form(x)]
        rows.append([given(x), checked(float(rules.norm(x)), against=float(np.linalg.norm(x))),
                     *(checked(g, against=e, rtol=1e-15) for g, e in zip(gradients, expected, strict=True))])
print(md_table(["`x`", "`norm(x)`", "`grad(norm)`, the body's rules", "`grad(unguarded_norm)`",
                "`grad(safe_norm)`, guarded rule"], rows))

# The rule is written with ad_core.numpy, so reverse over reverse works through it.
x = points[0]
u = x / np.linalg.norm(x)
second = jacobian(grad(rules.safe_norm))(x)
# A custom_vjp declares the reverse rule only: forward mode has no rule to call.
try:
    make_jvp(rules.safe_norm)(x)(x)
    forward_refused = False
except NotImplementedError as error:
    forward_refused = "safe_norm" in str(error)
try:
    hessian_vector_product(rules.safe_norm)(x, x)
    hvp_refused = False
except NotImplementedError:
    hvp_refused = True
assert forward_refused and hvp_refused
print(text(
    "\nAt the origin the norm has no derivative. Its subgradients are the vectors of length at most "
    "one, and the guarded rule returns the shortest, {zero}. The rule is written with "
    "`ad_core.numpy`, so reverse over reverse goes through it: `jacobian(grad(safe_norm))` at {x} "
    "is {H}, which is $(I - u u^\\top) / \\lVert x \\rVert$ with $u = x / \\lVert x \\rVert$.",
    zero=checked(rows[2][4].value, against=np.zeros(2)),
    x=given(x),
    H=checked(second, against=(np.eye(2) - np.outer(u, u)) / np.linalg.norm(x), rtol=1e-14),
))
