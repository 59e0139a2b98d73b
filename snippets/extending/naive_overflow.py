"""The naive formulas overflow where the stable primitives do not."""

import contextlib
import io
import warnings
from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, load_snippet_module, md_table, text


def load_primitive():
    """The stable `logsumexp` of this chapter's primitive snippet, its own output discarded."""
    with contextlib.redirect_stdout(io.StringIO()):  # its tables belong to its own block
        return load_snippet_module(Path(__file__).with_name("logsumexp_primitive.py")).logsumexp


# --8<-- [start:naive]
def naive_logsumexp(z):
    return anp.log(anp.sum(anp.exp(z), axis=-1))
# --8<-- [end:naive]


def quietly(compute):
    """Run `compute`, returning its result and the NumPy warnings it raised."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        result = compute()
    return result, sorted({str(w.message).split(" encountered")[0] for w in caught})


stable = load_primitive()
largest_exponent = np.log(np.finfo(np.float64).max)  # exp overflows above this
smallest_exponent = np.log(np.finfo(np.float64).smallest_subnormal)  # and underflows to 0 below


def naive_expected(z):
    """What the naive formula must give, from float64's range alone: inf if an exp overflows,
    -inf if every exp underflows, else the value (computed from a shift by z[0], not the max)."""
    if z.max() > largest_exponent:
        return np.inf, np.full(z.shape, np.nan)  # 0 * inf in exp's rule
    if z.max() < smallest_exponent:
        return -np.inf, np.full(z.shape, np.nan)  # inf * 0 in exp's rule
    return lse_by_first(z), softmax_by_first(z)


def lse_by_first(z):
    return z[0] + np.log(np.sum(np.exp(z - z[0])))  # shift-equivariance, with a shift of z[0]


def softmax_by_first(z):
    e = np.exp(z - z[0])
    return e / e.sum()


def show(value, precision):
    return f"`{np.array2string(np.asarray(value), precision=precision)}`"


rows = []
cases = [np.array([1.0, 2.0, 0.0]), np.array([1000.0, 1001.0, 999.0]), np.array([-1000.0, -1001.0, -999.0])]
for z in cases:
    naive_value, value_warnings = quietly(lambda z=z: naive_logsumexp(z))
    naive_gradient, gradient_warnings = quietly(lambda z=z: grad(naive_logsumexp)(z))
    stable_value, stable_gradient = stable(z), grad(stable)(z)
    expected_value, expected_gradient = naive_expected(z)
    rows.append([
        given(z, shown_as=lambda z: show(z, 4)),
        checked(naive_value, against=expected_value, rtol=1e-15, shown_as=lambda v: f"`{v}`"),
        checked(naive_gradient, against=expected_gradient, rtol=1e-15, shown_as=lambda g: show(g, 4)),
        ", ".join(sorted(set(value_warnings + gradient_warnings))) or "—",
        checked(stable_value, against=lse_by_first(z), rtol=1e-15, shown_as=lambda v: f"`{v:.6f}`"),
        # exp(z - ans) loses about eps * |ans| of relative accuracy: 1e-13 for |z| near 1000.
        checked(stable_gradient, against=softmax_by_first(z), rtol=1e-12, shown_as=lambda g: show(g, 6)),
    ])
print(md_table(
    ["$z$", "naive value", "naive gradient", "NumPy warnings", "stable value", "stable gradient"],
    rows,
))

shift = cases[1] - cases[0]
with np.errstate(over="ignore"):
    cotangent_of_log = 1 / np.exp(cases[1]).sum()  # what log's rule sends back: 1 / inf
print(text(
    "\nFor {large}, `exp` overflows to {inf_value}; the value is {inf_value}, and the gradient "
    "is {nan} because the rule of `log` sends back the cotangent `1 / inf`, which is {zero}, "
    "and the rule of `exp` multiplies it by `exp(z)`, which is {inf_value}. For {small}, every "
    "`exp` underflows to zero, the logarithm of zero is {minus_inf}, and the backward pass meets "
    "the same product the other way round (`1 / 0` times an `exp(z)` that is zero). The "
    "stable column gives the "
    "right answers: the first two rows differ by {shift} in every entry, so their gradients "
    "agree.",
    large=given(cases[1]), small=given(cases[2]),
    inf_value=checked(rows[1][1].value, against=np.inf, shown_as=lambda v: f"`{v}`"),
    nan=checked(bool(np.isnan(rows[1][2].value).all()), against=True, shown_as=lambda _: "`nan`"),
    zero=checked(cotangent_of_log, against=0.0, shown_as=lambda v: f"`{v:g}`"),
    minus_inf=checked(rows[2][1].value, against=-np.inf, shown_as=lambda v: f"`{v}`"),
    # the same shift in every entry
    shift=checked(float(shift[0]), against=float(shift[-1]), shown_as=lambda d: f"{d:g}"),
))
assert np.ptp(shift) == 0 and np.allclose(rows[0][5].value, rows[1][5].value, rtol=1e-12)
