"""Bit-for-bit equality versus agreement within a tolerance."""

import math
from fractions import Fraction

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, md_table, text

rng = np.random.default_rng(1010)
x = rng.standard_normal(10_000)
s = rng.uniform(0.5, 2.0, size=10_000)


def exact_relative_differences(a, b):
    """|a - b| / |b| for every entry, in exact rational arithmetic (no rounding anywhere)."""
    pairs = zip(a.ravel(), b.ravel(), strict=True)
    return [abs(Fraction(p) - Fraction(q)) / abs(Fraction(q)) for p, q in pairs]


def percent(share):
    return f"{share:.1%}"


def compare(name, a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    exact = exact_relative_differences(a, b)
    scale = np.maximum(np.abs(b), np.finfo(np.float64).tiny)
    largest = float(np.max(np.abs(a - b) / scale))
    return [
        name,
        # Equal as floats, counted again as equal bit patterns.
        checked(float(np.mean(a == b)), against=float(np.mean(a.view(np.int64) == b.view(np.int64))),
                shown_as=percent),
        # The float division rounds once; the exact value is within one rounding of it.
        checked(largest, against=float(max(exact)), rtol=1e-15, shown_as=lambda r: f"{r:.1e}"),
        checked(bool(np.allclose(a, b, rtol=1e-12, atol=0)), against=max(exact) <= Fraction(1e-12),
                shown_as=lambda flag: f"`{flag}`"),
    ]


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
shares = [row[1].value for row in rows]
assert shares[0] < 1.0 and rows[0][3].value  # different bits, same value
assert shares[3] == 1.0  # the engine's divide rule computes g / s, with g = 1
print(md_table(["comparison", "bit-for-bit equal", "largest relative difference",
                "`np.allclose(rtol=1e-12)`"], rows))

divisor_rows = rows[4:6]
exact_rows = [row for row in divisor_rows if row[1].value == 1.0]
other_rows = [row for row in divisor_rows if row[1].value != 1.0]
assert len(exact_rows) == 1 and len(other_rows) == 1  # one hand formula is the engine's own order
engine, other = grad(lambda s: anp.sum(x / s))(s), -x / s**2
units_apart = int(np.max(np.abs(engine.view(np.int64) - other.view(np.int64))))  # same sign throughout
print(text(
    "\nFor the divisor, the rule multiplies the cotangent by `ans` (which, with a cotangent of "
    "ones, rounds nothing), negates, and divides by `s`: the hand formula in the row "
    "\u201c{exact}\u201d performs the same roundings in the same order, so it agrees bit for "
    "bit; the other order agrees in only {share} of the entries, off by at most {units} units "
    "in the last place.",
    exact=exact_rows[0][0],
    share=other_rows[0][1],
    # counted in spacings of the float64 grid instead of in bit patterns
    units=checked(units_apart,
                  against=int(np.max(np.round(np.abs(engine - other) / np.spacing(np.abs(other)))))),
))
