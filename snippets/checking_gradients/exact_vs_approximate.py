"""Bit-for-bit equality versus agreement within a tolerance."""

import math

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import md_table

rng = np.random.default_rng(1010)
x = rng.standard_normal(10_000)
s = rng.uniform(0.5, 2.0, size=10_000)


def compare(name, a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    scale = np.maximum(np.abs(b), np.finfo(np.float64).tiny)
    return [name, f"{np.mean(a == b):.1%}", f"{np.max(np.abs(a - b) / scale):.1e}",
            "`True`" if np.allclose(a, b, rtol=1e-12, atol=0) else "`False`"]


# --8<-- [start:comparisons]
pairs = [
    ("`x / s` against `x * (1 / s)`", x / s, x * (1 / s)),
    ("`np.sum(x)` against `np.sum(x[::-1])` (reversed order)", np.sum(x), np.sum(x[::-1])),
    ("`np.sum(x)` against the exactly rounded `math.fsum`", np.sum(x), math.fsum(x)),
    ("engine `grad` of `sum(x / s)` in `x` against `1 / s`",
     grad(lambda x: anp.sum(x / s))(x), 1 / s),
    ("engine `grad` of `sum(x / s)` in `s` against `-x / s**2`",
     grad(lambda s: anp.sum(x / s))(s), -x / s**2),
    ("engine `grad` of `sum(x / s)` in `s` against `-(x / s) / s`",
     grad(lambda s: anp.sum(x / s))(s), -(x / s) / s),
]
# --8<-- [end:comparisons]
rows = [compare(name, a, b) for name, a, b in pairs]
assert rows[0][1] != "100.0%" and rows[0][3] == "`True`"  # different bits, same value
assert rows[3][1] == "100.0%"  # the engine's divide rule computes g / s, with g = 1
print(md_table(["comparison", "bit-for-bit equal", "largest relative difference",
                "`np.allclose(rtol=1e-12)`"], rows))

divisor_rows = rows[4:6]
exact_rows = [row for row in divisor_rows if row[1] == "100.0%"]
other_rows = [row for row in divisor_rows if row[1] != "100.0%"]
assert len(exact_rows) == 1 and len(other_rows) == 1  # one hand formula is the engine's own order
print(
    f"\nFor the divisor, the hand formula in the row \u201c{exact_rows[0][0]}\u201d performs the "
    f"engine rule's own operations in the same order, so it agrees bit for bit; the other order "
    f"agrees in only {other_rows[0][1]} of the entries, off by at most {other_rows[0][2]} relative."
)
