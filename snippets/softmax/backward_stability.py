"""The backward pass of log(softmax(z)) divides by p: with a probability below 1/max-float the
atomic gradient is nan while the fused log-softmax gradient stays within one ulp of exact."""

import inspect
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, load_snippet_module, md_table, text
from bookkit.source import rule_registrations

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))
F64 = np.finfo(np.float64)
# The reference is computed in extended precision; it must really be wider than float64 and
# have the range to hold e^-800, or it would not be a second opinion.
assert np.finfo(np.longdouble).eps < F64.eps and np.finfo(np.longdouble).tiny < np.exp(np.longdouble(-800))

target = 1


# --8<-- [start:losses]
def atomic_loss(z):
    return -helpers.atomic_log_softmax(z)[target]      # -log(softmax(z)[y]): log's rule is g / p


def fused_loss(z):
    return -helpers.log_softmax(z)[target]             # -(z_y - logsumexp(z)): p only multiplies


def logits(spread):
    return np.array([0.0, -spread, -1.0])              # the target sits `spread` below the top
# --8<-- [end:losses]


def reference(spread):
    """p - onehot(y) and the loss, in extended precision, from the closed forms."""
    z = logits(spread).astype(np.longdouble)
    p = np.exp(z - z.max())
    p /= p.sum()
    return p, p - np.eye(3, dtype=np.longdouble)[target], np.log(np.exp(z).sum()) - z[target]


def within_ulps(value, exact):
    """Largest error against the extended-precision value, in units of the float64 spacing
    there (rounding alone can cost half of one)."""
    spacing = np.spacing(np.abs(exact.astype(np.float64))).astype(np.longdouble)
    return float(np.max(np.abs(value.astype(np.longdouble) - exact) / spacing))


def error_cell(gradient, exact):
    if np.all(np.isfinite(gradient)):
        return text("finite, {u} ulp", u=checked(within_ulps(gradient, exact), against=0.0, atol=1.0,
                                                 shown_as=lambda v: f"{v:.1f}"))
    return text("`{g}`", g=checked(str(gradient), against=str(np.full(3, np.nan))))


SPREADS = [10.0, 700.0, 720.0, 740.0, 760.0]
rows, nan_spreads, nan_with_finite_loss = [], [], []
for spread in SPREADS:
    z = logits(spread)
    p_exact, grad_exact, loss_exact = reference(spread)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):  # the point
        p64 = helpers.softmax_np(z)[target]
        loss_atomic = float(atomic_loss(z))
        grad_atomic = grad(atomic_loss)(z)
    grad_fused = grad(fused_loss)(z)
    # Predicted without running the backward pass: log's rule forms -1/p_y, which is inf
    # exactly when p_y < 1 / (largest float64), and inf - inf is nan in the row sums after it.
    predicted_nan = bool(p_exact[target] < 1 / np.longdouble(F64.max))
    assert (not np.all(np.isfinite(grad_atomic))) == predicted_nan
    if predicted_nan and not nan_spreads:
        p_first_nan, first_nan_gradient = p64, grad_atomic
    if predicted_nan:
        nan_spreads.append(spread)
        if np.isfinite(loss_atomic):
            nan_with_finite_loss.append(spread)
    if p64 == 0.0:
        loss_cell = text("`{v}`", v=checked(str(loss_atomic), against=str(np.inf)))
    else:
        # A subnormal p keeps fewer bits: the loss can be off by one spacing of p, relative to p.
        bound = float(np.spacing(p64) / p64) + 4 * F64.eps * float(loss_exact)
        loss_cell = checked(loss_atomic, against=float(loss_exact), atol=bound, shown_as=lambda v: f"{v:.4f}")
    rows.append([
        given(spread, shown_as=lambda v: f"{v:.0f}"),
        checked(float(p64), against=float(p_exact[target]), rtol=1e-10, atol=F64.smallest_subnormal,
                shown_as=lambda v: f"{v:.3e}"),
        loss_cell,
        checked(float(loss_exact), against=spread + np.log1p(np.exp(-1.0) + np.exp(-spread)), rtol=1e-15,
                shown_as=lambda v: f"{v:.4f}"),
        error_cell(grad_atomic, grad_exact),
        error_cell(grad_fused, grad_exact),
    ])

print(md_table(
    ["spread $s$", "$p_y$ in float64", "loss, atomic", "loss, exact", "atomic gradient", "fused gradient"],
    rows,
))
print()
(log_rule,) = rule_registrations(inspect.getmodule(anp.log.vjps[0]), ["anp.log"])
with np.errstate(over="ignore"):
    minus_one_over_p = -1 / p_first_nan           # what log's rule forms at the first nan row
path, line, code = log_rule.path, log_rule.first_line, log_rule.text
assert code.endswith("g / x)")
print(text(
    "The logits are $(0, -s, -1)$ with the target in the middle; the exact columns are computed in "
    "extended precision (NumPy's `longdouble`, {bits} significant bits) from the closed forms "
    "$p - \\mathbf{{1}}_y$ and $s + \\log(1 + e^{{-1}} + e^{{-s}})$, and the gradient errors are "
    "in units in the last place of that exact value. From $s$ = {first} on the atomic gradient "
    "is {nan}, and at $s$ = {finite} the loss is still finite. The rule for `log` (`{path}` line "
    "{line}: `{code}`) forms $-1/p_y$, which overflows to {minus_inf} once $p_y$ is below one over "
    "the largest float64 ({fmax}); the division's VJP then adds the two infinite paths into the "
    "counts, {sum_of_infinities}. The fused formula "
    "$g - p \\sum g$ only multiplies by $p$, so an underflowed $p$ costs nothing.",
    # the significand's bits, read from NumPy and found by stepping from 1 to the next longdouble
    bits=checked(np.finfo(np.longdouble).nmant + 1,
                 against=1 - int(np.log2(np.nextafter(np.longdouble(1), np.longdouble(2)) - 1))),
    first=checked(min(nan_spreads), against=min(s for s in SPREADS if s > 709.78 + np.log1p(np.exp(-1.0))),
                  shown_as=lambda v: f"{v:.0f}"),
    path=given(path), line=given(line), code=given(code),
    nan=checked(f"`{first_nan_gradient[0]}`", against="`nan`"),
    minus_inf=checked(f"`{minus_one_over_p}`", against=f"`{-np.inf}`"),
    finite=checked(" and ".join(f"{v:.0f}" for v in nan_with_finite_loss),
                   against=" and ".join(f"{v:.0f}" for v in SPREADS if 710 < v < 745)),
    sum_of_infinities=checked(f"`{np.inf} + {-np.inf} = {np.inf + -np.inf}`", against="`inf + -inf = nan`"),
    fmax=checked(float(F64.max), against=float(np.nextafter(np.inf, 0)), shown_as=lambda v: f"{v:.3e}"),
))
