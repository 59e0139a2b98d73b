"""The naive formulas overflow where the stable primitives do not."""

import contextlib
import io
import warnings

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import load_snippet_module, md_table


def load_primitive():
    """The stable `logsumexp` of this chapter's primitive snippet, its own output discarded."""
    with contextlib.redirect_stdout(io.StringIO()):  # its tables belong to its own block
        return load_snippet_module("snippets/extending/logsumexp_primitive.py").logsumexp


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
rows = []
for z in [np.array([1.0, 2.0, 0.0]), np.array([1000.0, 1001.0, 999.0]),
          np.array([-1000.0, -1001.0, -999.0])]:
    naive_value, value_warnings = quietly(lambda z=z: naive_logsumexp(z))
    naive_gradient, gradient_warnings = quietly(lambda z=z: grad(naive_logsumexp)(z))
    stable_value, stable_gradient = stable(z), grad(stable)(z)
    assert np.isfinite(stable_value) and np.all(np.isfinite(stable_gradient))
    # exp(z - ans) loses about eps * |ans| of relative accuracy: 1e-13 for |z| near 1000.
    np.testing.assert_allclose(stable_gradient.sum(), 1.0, rtol=1e-12)
    shifted = z - z.max()  # log-sum-exp is shift-equivariant, softmax shift-invariant
    np.testing.assert_allclose(stable_value, z.max() + np.log(np.exp(shifted).sum()), rtol=1e-15)
    rows.append([
        f"`{np.array2string(z)}`", f"`{naive_value}`",
        f"`{np.array2string(naive_gradient, precision=4)}`",
        ", ".join(sorted(set(value_warnings + gradient_warnings))) or "—",
        f"`{stable_value:.6f}`", f"`{np.array2string(stable_gradient, precision=6)}`",
    ])
assert rows[0][1] != "`inf`" and rows[1][1] == "`inf`" and rows[2][1] == "`-inf`"
print(md_table(
    ["$z$", "naive value", "naive gradient", "NumPy warnings", "stable value", "stable gradient"],
    rows,
))
