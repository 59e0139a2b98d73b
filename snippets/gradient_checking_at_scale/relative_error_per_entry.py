"""Per-entry relative error: where `max |m - n|` passes a bug, and where `|m - n| / max(|m|, |n|)`
fails a right gradient."""

from pathlib import Path

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

net = load_snippet_module(Path(__file__).with_name("_network_loss.py"))
example = net.example
STEP64 = 1e-4  # the float64 best step measured above

# --- 1. Mixed scales: a main loss and an auxiliary term weighted 1e-4 -------------------------
rng = np.random.default_rng(1)
X = rng.standard_normal((16, 5))
a, b = rng.standard_normal(5), rng.standard_normal(5)
WEIGHT = 1e-4
RTOL32, RTOL64 = net.RTOL[np.float32], net.RTOL[np.float64]  # the tolerances of the table above


# --8<-- [start:mixed]
def total_loss(a, b):
    return np.sum(np.tanh(X @ a)) + WEIGHT * np.sum(np.tanh(X @ b))


def gradients(a, b):
    ga = X.T @ (1 - np.tanh(X @ a) ** 2)
    gb = WEIGHT * X.T @ np.ones(len(X))  # bug: forgets tanh's derivative
    return ga, gb


# rtol = 5e-4: the rtol of a float32 check (under the table above)
def max_abs_check(mine, numeric, rtol=5e-4):  # one tolerance, scaled by the largest entry
    return np.max(np.abs(mine - numeric)) <= rtol * np.max(np.abs(numeric))


def per_entry_check(mine, numeric, rtol=5e-4, atol=1e-9):  # atol: the noise of a difference
    return np.all(np.abs(mine - numeric) <= atol + rtol * np.abs(numeric))


# --8<-- [end:mixed]


def numeric_gradient(fun, x, step=STEP64):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = step
        out[i] = (fun(x + e) - fun(x - e)) / (2 * step)
    return out


assert max_abs_check.__defaults__ == (RTOL32,) and per_entry_check.__defaults__[0] == RTOL32
ga, gb = gradients(a, b)
na = numeric_gradient(lambda v: total_loss(v, b), a)
nb = numeric_gradient(lambda v: total_loss(a, v), b)
true_gb = WEIGHT * X.T @ (1 - np.tanh(X @ b) ** 2)
mine, numeric = np.concatenate([ga, gb]), np.concatenate([na, nb])
assert np.allclose(nb, true_gb, rtol=0, atol=1e-9)  # the numeric side is right
max_abs_passes = bool(max_abs_check(mine, numeric))
per_entry_passes = bool(per_entry_check(mine, numeric))
worst_b = float(np.max(np.abs(gb - nb) / np.abs(nb)))
print(
    md_table(
        ["check of both tensors at once", "passes the bug?", "why"],
        [
            [
                "`max_abs_check`: $\\max_i |m_i - n_i| \\le \\mathrm{rtol} \\max_i |n_i|$",
                checked(
                    max_abs_passes,
                    against=bool(np.max(np.abs(gb - nb)) <= RTOL32 * np.max(np.abs(na)))
                    and bool(np.max(np.abs(ga - na)) <= RTOL32 * np.max(np.abs(na))),
                    shown_as=lambda v: "yes" if v else "no",
                ),
                text(
                    "`b`'s whole gradient is about {w} of `a`'s, so its error (up to {err:.1e}) is below "
                    "the tolerance the largest entry sets ({tol:.1e})",
                    w=given(WEIGHT, shown_as=lambda v: f"{v:g}"),
                    err=checked(
                        float(np.max(np.abs(gb - nb))), against=float(np.max(np.abs(gb - true_gb))), rtol=1e-6
                    ),
                    tol=checked(
                        RTOL32 * float(np.max(np.abs(numeric))), against=RTOL32 * float(np.max(np.abs(na)))
                    ),
                ),
            ],
            [
                "`per_entry_check`: $|m_i - n_i| \\le \\mathrm{atol} + \\mathrm{rtol}\\,|n_i|$ for every $i$",
                checked(per_entry_passes, against=worst_b <= RTOL32, shown_as=lambda v: "yes" if v else "no"),
                text(
                    "each entry of `b`'s gradient is judged against its own size: the worst is off by "
                    "{worst:.0%}",
                    worst=checked(worst_b, against=float(np.max(np.abs(gb / true_gb - 1))), rtol=1e-6),
                ),
            ],
        ],
    )
)
print()

# --- 2. A right gradient with true zeros: the symmetric relative error fails it --------------
grad_C, grad_b1 = example.engine["C"], example.engine["b1"]
num_C = net.entry_differences("C", STEP64)
num_b1 = net.entry_differences("b1", STEP64)
absent = sorted(set(range(grad_C.shape[0])) - set(example.Xb.ravel().tolist()))
with np.errstate(invalid="ignore", divide="ignore"):
    symmetric_C = np.abs(grad_C - num_C) / np.maximum(np.abs(grad_C), np.abs(num_C))
    symmetric_b1 = np.abs(grad_b1 - num_b1) / np.maximum(np.abs(grad_b1), np.abs(num_b1))
nan_rows = sorted(set(np.flatnonzero(np.isnan(symmetric_C).any(axis=1)).tolist()))
assert nan_rows == absent and np.all(grad_C[absent] == 0) and np.all(num_C[absent] == 0)
ATOL64 = 1e-9  # above the float64 noise of a difference
assert per_entry_check(grad_C, num_C, rtol=RTOL64, atol=ATOL64)
assert per_entry_check(grad_b1, num_b1, rtol=RTOL64, atol=ATOL64)
CS231N_WRONG = 1e-2  # the notes: "relative error > 1e-2 usually means the gradient is probably wrong"
both_zero_b1 = int(np.sum((grad_b1 == 0) & (num_b1 == 0)))
assert both_zero_b1 == int(np.sum(np.isnan(symmetric_b1)))
print(
    text(
        "The symmetric relative error $|m - n| / \\max(|m|, |n|)$ of the "
        "[CS231n notes on gradient checks](https://cs231n.github.io/neural-networks-3/#gradcheck) "
        "has the opposite failure, at zero and tiny entries. The notes tell you to pass by hand the "
        "entries where both sides are zero, where it is undefined: on the Part III network (float64, "
        "$h$ = {h:g}) the {k} rows of `C` whose characters are not in the minibatch ({rows}) and "
        "{z} of `b1`'s {n1} entries. The exemption does not cover tiny entries. `b1`'s true "
        "gradient is zero, because BatchNorm subtracts the batch mean; in {k1} of its entries one "
        "side is exactly zero and the other a rounding error no larger than {noise:.0e}, so the "
        "error is {one:g}, its largest possible value; by the notes, an error above {wrong:g} "
        "usually means the gradient is wrong. Both gradients are right. This page uses the per-entry check "
        "with an absolute floor instead (atol = {atol:g}, above the float64 noise of a difference, "
        "rtol = {rtol:g}): it needs no exemption and passes every entry of both.",
        h=given(STEP64),
        k=checked(len(nan_rows), against=grad_C.shape[0] - len(np.unique(example.Xb))),
        rows=", ".join(f"`{net.model.ALPHABET[r]}`" for r in nan_rows),
        z=checked(both_zero_b1, against=grad_b1.size - int(np.sum((grad_b1 != 0) | (num_b1 != 0)))),
        one=checked(float(np.nanmax(symmetric_b1)), against=1.0),
        k1=checked(int(np.sum(symmetric_b1 == 1.0)), against=int(np.sum((grad_b1 == 0) != (num_b1 == 0)))),
        n1=given(grad_b1.size),
        noise=checked(float(np.max(np.abs(grad_b1 - num_b1))), against=0.0, atol=1e-15),
        wrong=given(CS231N_WRONG),
        atol=given(ATOL64),
        rtol=given(RTOL64),
    )
)
