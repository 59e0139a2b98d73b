"""Bit-for-bit equality versus closeness: where floating point makes two right answers differ."""

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

model = load_snippet_module("snippets/network_by_hand/_model.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
HPREACT_TO_INPUT = model.HPREACT_TO_INPUT
LOSS_TO_HPREACT = model.LOSS_TO_HPREACT
PARAM_NAMES = model.PARAM_NAMES
forward = model.forward
worked_example = worked.worked_example

rng = np.random.default_rng(5)
size = 100_000
s = rng.uniform(1.0, 30.0, size=size)
c = rng.uniform(0.0, 1.0, size=size)
p = rng.uniform(1e-3, 1.0, size=size)          # probabilities
EPS = np.finfo(float).eps


def bits_differ(left: np.ndarray, right: np.ndarray) -> int:
    """Entries whose float64 bit patterns differ: a count made on the bits, not with `!=`."""
    return int(np.count_nonzero(left.view(np.int64) != right.view(np.int64)))


# (label, left, right, predicted count or None): a prediction of 0 is a claim about rounding.
cases = [
    ("`s**-1` vs `1/s`", s**-1, 1 / s, 0),
    ("`c * s**-1` vs `c / s`", c * s**-1, c / s, None),
    ("`s**-0.5` vs `1/np.sqrt(s)`", s**-0.5, 1 / np.sqrt(s), None),
    ("`(a + b) + c` vs `a + (b + c)`", (s + c) + c[::-1], s + (c + c[::-1]), None),
    ("`(1/p) * d` vs `d / p`, `d = -1/32`", (1 / p) * (-1 / 32), (-1 / 32) / p, 0),
    ("`(1/p) * d` vs `d / p`, `d = -1/30`", (1 / p) * (-1 / 30), (-1 / 30) / p, None),
]
rows = []
counts = []
for label, left, right, predicted in cases:
    differ = int(np.count_nonzero(left != right))
    counts.append(differ)
    relative = float(np.max(np.abs(left - right) / np.abs(right)))
    rows.append([
        label,
        text("{k} of {n}",
             k=checked(differ, against=bits_differ(left, right) if predicted is None else predicted),
             n=given(size)),
        # at most two units of float64 rounding: both sides are correctly rounded to within that
        checked(relative, against=0.0, atol=2 * EPS, shown_as=lambda v: f"{v:.1e}"),
    ])
# The rows that round more than once do differ somewhere.
assert all(count > 0 for count in (counts[1], counts[2], counts[5]))
print(md_table(["two ways", "results that differ", "largest relative difference"], rows,
               align=["left", "right", "right"]))
print()
print(text(
    "NumPy computes `s**-1` and `1/s` identically here: both round the exact quotient once. "
    "Multiplying by a rounded reciprocal rounds twice, so `c * s**-1` and `c / s` differ in the "
    "last bit for a large share of inputs. Both answers are correct; neither is *the* correct "
    "bit pattern. The last two rows are the log step of the backward pass: the hand-written "
    "`(1.0 / probs) * dlogprobs` against `ad_core`'s rule `g / x`. Multiplying by a power of two "
    "such as $-1/{a}$ only changes the exponent, so it never rounds, and both sides round "
    "`1/p` once; with $-1/{b}$ the product rounds a second time.",
    a=given(32),
    b=given(30),
))
print()

# Write the log step as the rule does, and every row at B = 30 is bit-equal too.
names = LOSS_TO_HPREACT + HPREACT_TO_INPUT
example = worked_example()
lecture = worked_example(batch_size=30)
as_rule = worked_example(batch_size=30, log_step="divide")
bit_equal_as_rule = [n for n in names if np.array_equal(as_rule.hand[n], as_rule.engine[n])]
bit_equal_lecture = [n for n in names if np.array_equal(lecture.hand[n], lecture.engine[n])]
entries = bits_differ(lecture.hand["probs"], as_rule.hand["probs"])
assert entries > 0
print(text(
    "At $B = {b}$ the lecture's line and the rule's disagree in {k} of the {picked} non-zero "
    "entries of `dprobs`, and every later gradient inherits the difference: {lect} of {n} "
    "gradients stay bit-equal. Write the line as `dlogprobs / probs` instead and {rule} of {n} "
    "are bit-equal at $B = {b}$ as well: the other hand-written lines round as the engine's "
    "rules do. So bit-for-bit equality at $B = {b32}$ does not mean the same operations in the "
    "same order; there, different operations gave the same bits. Closeness is the correctness "
    "test, and the table's *approximate* column is itself checked against central differences.",
    b=given(lecture.batch_size),
    b32=given(example.batch_size),
    k=checked(entries, against=int(np.count_nonzero(lecture.hand["probs"] != as_rule.hand["probs"]))),
    picked=checked(int(np.count_nonzero(lecture.hand["logprobs"])), against=lecture.batch_size),
    lect=checked(len(bit_equal_lecture), against=sum(n == "logprobs" for n in names)),
    rule=checked(len(bit_equal_as_rule), against=len(names)),
    n=given(len(names)),
))
print()

# Central differences on the whole loss, in float64, along random directions.
params = example.params


def loss_at(shifted: dict) -> float:
    return float(forward(shifted, example.Xb, example.Yb)["loss"])


DIRECTIONS, STEP = 5, 1e-5
direction_rng = np.random.default_rng(9)
relative_errors = []
for _ in range(DIRECTIONS):
    direction = {k: direction_rng.standard_normal(params[k].shape) for k in PARAM_NAMES}
    plus = {k: params[k] + STEP * direction[k] for k in PARAM_NAMES}
    minus = {k: params[k] - STEP * direction[k] for k in PARAM_NAMES}
    numeric = (loss_at(plus) - loss_at(minus)) / (2 * STEP)
    analytic = sum(float(np.sum(example.hand[k] * direction[k])) for k in PARAM_NAMES)
    relative_errors.append(abs(numeric - analytic) / abs(analytic))
worst = max(relative_errors)
print(text(
    "A last, independent check: along {k} random directions $v$ in the space of all {p} "
    "parameters, the float64 central difference $\\big(L(\\theta + \\epsilon v) - "
    "L(\\theta - \\epsilon v)\\big) / 2\\epsilon$ with $\\epsilon = {step}$ agrees with the "
    "hand-written $\\langle \\nabla L, v \\rangle$ to a relative error of at most {worst}. "
    "Central differences have truncation error of order $\\epsilon^2$ and rounding error of "
    "order $u/\\epsilon$ ($u$ the float64 unit roundoff), so this is about as close as they can "
    "confirm: they test the whole chain, including the parts the next chapter's table covers.",
    k=given(DIRECTIONS),
    p=checked(len(PARAM_NAMES), against=len(example.params)),
    step=given(STEP, shown_as=lambda v: "10^{-5}"),
    # the bound central differences can confirm at this step (the claim "as close as they can")
    worst=checked(worst, against=0.0, atol=1e-7, shown_as=lambda v: f"{v:.1e}"),
))
