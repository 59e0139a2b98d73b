"""Bit-for-bit equality versus closeness: where floating point makes two right answers differ."""

import numpy as np

from bookkit import md_table
from bookkit.mlp_by_hand import PARAM_NAMES, forward, worked_example

rng = np.random.default_rng(5)
s = rng.uniform(1.0, 30.0, size=100_000)
c = rng.uniform(0.0, 1.0, size=100_000)

cases = [
    ("`s**-1` vs `1/s`", s**-1, 1 / s),
    ("`c * s**-1` vs `c / s`", c * s**-1, c / s),
    ("`s**-0.5` vs `1/np.sqrt(s)`", s**-0.5, 1 / np.sqrt(s)),
    ("`(a + b) + c` vs `a + (b + c)`", (s + c) + c[::-1], s + (c + c[::-1])),
]
rows = []
for label, left, right in cases:
    differ = int(np.count_nonzero(left != right))
    relative = float(np.max(np.abs(left - right) / np.abs(right)))
    assert relative <= 2 * np.finfo(float).eps
    rows.append([label, f"{differ} of {s.size}", f"{relative:.1e}"])
print(md_table(["two ways", "results that differ", "largest relative difference"], rows,
               align=["left", "right", "right"]))
print()
# In NumPy the reciprocal and the power agree: both round the exact result once.
assert rows[0][1].startswith("0 ")
# Multiplying by a rounded reciprocal rounds twice; dividing rounds once.
assert not rows[1][1].startswith("0 ")
print(
    "NumPy computes `s**-1` and `1/s` identically here: both round the exact quotient once. "
    "Multiplying by a rounded reciprocal rounds twice, so `c * s**-1` and `c / s` differ in the "
    "last bit for a large share of inputs. Both answers are correct; neither is *the* correct "
    "bit pattern. That is why a hand-written backward pass is judged by closeness, and why "
    "exact equality only tells you that two codes did the same operations in the same order."
)
print()

# Central differences on the whole loss, in float64, along random directions.
example = worked_example()
params = example.params


def loss_at(shifted: dict) -> float:
    return float(forward(shifted, example.Xb, example.Yb)["loss"])


direction_rng = np.random.default_rng(9)
step = 1e-5
relative_errors = []
for _ in range(5):
    direction = {k: direction_rng.standard_normal(params[k].shape) for k in PARAM_NAMES}
    plus = {k: params[k] + step * direction[k] for k in PARAM_NAMES}
    minus = {k: params[k] - step * direction[k] for k in PARAM_NAMES}
    numeric = (loss_at(plus) - loss_at(minus)) / (2 * step)
    analytic = sum(float(np.sum(example.hand[k] * direction[k])) for k in PARAM_NAMES)
    relative_errors.append(abs(numeric - analytic) / abs(analytic))
worst = max(relative_errors)
assert worst < 1e-7
print(
    f"A last, independent check: along five random directions $v$ in the space of all seven "
    f"parameters, the float64 central difference $\\big(L(\\theta + \\epsilon v) - "
    f"L(\\theta - \\epsilon v)\\big) / 2\\epsilon$ with $\\epsilon = 10^{{-5}}$ agrees with the "
    f"hand-written $\\langle \\nabla L, v \\rangle$ to a relative error of at most {worst:.1e}. "
    "Central differences have truncation error of order $\\epsilon^2$ and rounding error of "
    "order $10^{-16}/\\epsilon$, so this is as close as they can confirm: they test the whole "
    "chain, including the parts the table above covers in the next chapter."
)
