"""Self-test for "Gradient checking at scale": every worked answer is computed here."""

from math import comb
from pathlib import Path

import numpy as np

from bookkit import checked, collapsible, given, load_snippet_module, md_table, text

net = load_snippet_module(Path(__file__).with_name("_network_loss.py"))
solution = load_snippet_module("snippets/your_own_backward/_solution.py")
wrong = load_snippet_module("snippets/your_own_backward/_wrong_attempt.py")
example = net.example


def title(number: int, words: str, **fields) -> str:
    return text("Exercise {k}. " + words, k=given(number), **fields)


# 1. One random-direction check against the off-by-one bug of the sampling section.
grads = solution.backward(example.params, example.cache, example.Xb, example.Yb)
buggy = {n: np.reshape(grads[n], example.params[n].shape) for n in net.PARAM_NAMES}
buggy["C"] = np.zeros_like(example.params["C"])
np.add.at(buggy["C"], example.Xb[:-1], grads["emb"][:-1])
direction = net.random_unit_direction(seed=100)
numeric = net.directional_difference(direction, 1e-4, np.float64)
discrepancy = abs(net.directional_exact(direction, buggy) - numeric) / abs(numeric)
right = abs(net.directional_exact(direction, example.engine) - numeric) / abs(numeric)
assert discrepancy > 1e3 * right
numeric32 = net.directional_difference(direction, 1e-1, np.float32)
right32 = abs(net.directional_exact(direction, example.engine) - numeric32) / abs(numeric32)
# One direction gives one number, <e, d> with e the error of the gradient. The check sees the bug
# when |<e, d>| > tau |<g, d>|. For a Gaussian direction (a unit one is a rescaled Gaussian, and
# the ratio does not see the scale) <e, d> / <g, d> is Cauchy with location rho r and scale
# r sqrt(1 - rho^2), r = |e| / |g|, rho the cosine between e and g: a closed form for a miss.
flat = {name: np.concatenate([np.ravel(grad[n]) for n in net.PARAM_NAMES])
        for name, grad in (("g", example.engine), ("bug", buggy))}
e, g = flat["bug"] - flat["g"], flat["g"]
r, rho = np.linalg.norm(e) / np.linalg.norm(g), e @ g / (np.linalg.norm(e) * np.linalg.norm(g))
location, scale = rho * r, r * np.sqrt(1 - rho**2)


def miss_chance(tau: float) -> float:
    return float((np.arctan((tau - location) / scale) + np.arctan((tau + location) / scale)) / np.pi)


TRIALS = 20000
rng = np.random.default_rng(11)
ratios = np.concatenate([(D @ e) / (D @ g) for D in (rng.standard_normal((2000, g.size)) for _ in range(10))])
tau64, tau32 = 10 * right, 10 * right32  # ten times the right gradient's discrepancy, per type
misses = {}
for tau in (tau64, tau32):
    p = miss_chance(tau)
    misses[tau] = (p, float(np.mean(np.abs(ratios) <= tau)))
    assert abs(misses[tau][1] - p) <= 4 * np.sqrt(max(p * (1 - p), 1e-4) / TRIALS)
print(
    collapsible(
        title(
            1,
            "Instead of sampling entries, take one random direction $d$ over all parameters and "
            "compare $\\langle g, d\\rangle$ with a central difference along $d$. Does that one "
            "check catch the off-by-one in `C`'s gradient?",
        ),
        text(
            "In float64, almost surely. Along this direction the relative discrepancy is {bad:.1e}, "
            "against {ok:.0e} for the right gradient ($h$ = {h:g}). But one direction gives one "
            "number, $\\langle e, d\\rangle$ with $e$ the gradient's error, and the check sees the "
            "bug only when $|\\langle e, d\\rangle| > \\tau\\,|\\langle g, d\\rangle|$, $\\tau$ "
            "the difference's noise. For a random $d$ the ratio "
            "$\\langle e, d\\rangle / \\langle g, d\\rangle$ is Cauchy-distributed with a scale of "
            "about $|e| / |g|$ = {r:.1e}: the error's size next to the *whole* gradient, not next "
            "to its own tensor. With $\\tau$ ten times the right gradient's discrepancy, one "
            "direction misses this bug with probability {p64:.0e} in float64 ($\\tau$ = {t64:.0e}) "
            "but {p32:.3f} in float32 ($\\tau$ = {t32:.0e}; {s32:.3f} of {T} simulated "
            "directions). A bug whose error is small next to the whole gradient can hide from it, "
            "and when it does catch one it cannot tell you *which* entries are wrong: use it first, "
            "then sample entries tensor by tensor.",
            bad=checked(
                discrepancy,
                against=abs(
                    net.directional_exact(
                        direction, {n: buggy[n] - example.engine[n] for n in net.PARAM_NAMES}
                    )
                    + net.directional_exact(direction, example.engine)
                    - numeric
                )
                / abs(numeric),
                rtol=1e-9,
            ),
            ok=checked(right, against=0.0, atol=1e-8),
            h=given(1e-4),
            r=checked(float(r), against=float(np.median(np.abs(ratios))), rtol=0.1),
            p64=checked(misses[tau64][0], against=misses[tau64][1], atol=4 * np.sqrt(1e-4 / TRIALS)),
            t64=given(tau64),
            p32=checked(misses[tau32][0], against=misses[tau32][1],
                        atol=4 * np.sqrt(max(misses[tau32][0] * (1 - misses[tau32][0]), 1e-4) / TRIALS)),
            t32=given(tau32),
            s32=checked(misses[tau32][1], against=misses[tau32][0],
                        atol=4 * np.sqrt(max(misses[tau32][0] * (1 - misses[tau32][0]), 1e-4) / TRIALS)),
            T=given(TRIALS),
        ),
    )
)
print()

# 2. The wrong attempt's Bessel bug in `C`, entry by entry, in float32 and float64.
bad_C = wrong.backward(example.params, example.cache, example.Xb, example.Yb)["C"]
true_C = example.engine["C"]
really_wrong = int(np.sum(~np.isclose(bad_C, true_C, rtol=1e-9, atol=1e-15)))
rows, results = [], {}
for dtype, steps in ((np.float32, (1e-2, 3e-2, 1e-1)), (np.float64, (1e-4,))):
    rtol = net.RTOL[dtype]
    candidates = [(float(np.abs(true_C - net.entry_differences("C", h, dtype)).max()), h) for h in steps]
    noise, h = min(candidates)
    numeric_C = net.entry_differences("C", h, dtype)
    atol = 2 * noise  # twice the largest error of the right gradient: it passes, by construction
    assert np.all(np.abs(true_C - numeric_C) <= atol + rtol * np.abs(numeric_C))
    flagged = int(np.sum(np.abs(bad_C - numeric_C) > atol + rtol * np.abs(numeric_C)))
    results[dtype] = flagged
    rows.append(
        [
            given(np.dtype(dtype).name, shown_as=lambda v: f"`{v}`"),
            given(h, shown_as=lambda v: f"{v:g}"),
            checked(noise, against=float(np.max(np.abs(numeric_C - true_C))), shown_as=lambda v: f"{v:.1e}"),
            checked(
                flagged,
                against=int(np.sum(~np.isclose(bad_C, numeric_C, rtol=rtol, atol=atol))),
                shown_as=str,
            ),
        ]
    )
assert results[np.float64] == really_wrong and results[np.float32] < really_wrong
print(
    collapsible(
        title(
            2,
            "Check the wrong attempt's `dC` from [Your own backward pass](your-own-backward.md) "
            "(the variance divided by $n$) entry by entry, in float32 and in float64, with atol "
            "twice the largest error of the right gradient. How many wrong entries does each find?",
        ),
        text(
            "`C` has {wrong} wrong entries out of {n}. Each type at its best step of those tried:\n\n",
            wrong=checked(really_wrong, against=int(np.sum(np.abs(bad_C - true_C) > 1e-12))),
            n=given(true_C.size),
        )
        + md_table(
            ["dtype", "step", "largest error of the right gradient", "wrong entries flagged"],
            rows,
            align=["left", "right", "right", "right"],
        )
        + text(
            "\n\nFloat32's noise is larger than many of the bug's errors, so it finds only part "
            "of them; float64 finds every one. Check in float64, even if you train in float32."
        ),
    )
)
print()

# 3. How many samples for a bug in one row of W1.
N, k = example.params["W1"].size, example.params["W1"].shape[1]
m = next(m for m in range(1, N + 1) if 1 - comb(N - k, m) / comb(N, m) >= 0.99)
print(
    collapsible(
        title(
            3,
            "A bug spoils one row of `W1` ({wrong} of its {total} entries). How many entries of `W1` must "
            "you sample for a {p:.0%} chance of hitting one?",
            wrong=given(k),
            total=given(N),
            p=given(0.99),
        ),
        text(
            "The smallest $m$ with $1 - \\binom{{N-k}}{{m}} / \\binom{{N}}{{m}} \\ge p$ is {m}; the "
            "estimate $\\frac{{N}}{{k}} \\ln \\frac{{1}}{{1-p}}$ = {rough:.0f} is close because "
            "$k/N$ is small. The count grows like $N/k$: a bug ten times rarer needs ten times "
            "the samples.",
            m=checked(
                m,
                against=int(
                    np.argmax(1 - np.cumprod([(N - k - i) / (N - i) for i in range(N - k + 1)]) >= 0.99)
                )
                + 1,
            ),
            rough=checked(
                N / k * np.log(100), against=float(N) / float(k) * float(np.log(1 / 0.01)), rtol=1e-12
            ),
        ),
    )
)
