"""How many entries to check: the chance that a random sample of m entries contains a wrong one,
computed exactly and checked by simulation, for a real bug in the Part III network."""

from math import comb
from pathlib import Path

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

net = load_snippet_module(Path(__file__).with_name("_network_loss.py"))
solution = load_snippet_module("snippets/your_own_backward/_solution.py")
example = net.example

# The bug: the embedding's scatter-add skips the last example of the batch (an off-by-one).
SOURCE_LINE = "np.add.at(dC, Xb, demb)"
grads = solution.backward(example.params, example.cache, example.Xb, example.Yb)
buggy_dC = np.zeros_like(example.params["C"])
np.add.at(buggy_dC, example.Xb[:-1], grads["emb"][:-1])

# Which entries a per-entry float64 check flags: every entry of C differenced, the rest right.
numeric_C = net.entry_differences("C", 1e-4)
ATOL64, RTOL64 = 1e-9, net.RTOL[np.float64]
flagged_C = ~(np.abs(buggy_dC - numeric_C) <= ATOL64 + RTOL64 * np.abs(numeric_C))
assert np.all(np.abs(grads["C"] - numeric_C) <= ATOL64 + RTOL64 * np.abs(numeric_C))
last_chars = np.unique(example.Xb[-1])
assert set(np.flatnonzero(flagged_C.any(axis=1))) == set(last_chars.tolist())
k = int(flagged_C.sum())
N = sum(v.size for v in example.params.values())
N_C = example.params["C"].size


# --8<-- [start:chance]
def chance_of_catching(N, k, m):
    """P(a uniform sample of m of N entries, without replacement, holds one of the k wrong)."""
    return 1 - comb(N - k, m) / comb(N, m)


# --8<-- [end:chance]


def simulated(N, k, m, trials, rng):
    wrong = np.zeros(N, dtype=bool)
    wrong[:k] = True  # which k does not matter for a uniform sample
    return float(np.mean([wrong[rng.choice(N, size=m, replace=False)].any() for _ in range(trials)]))


TRIALS = 4000
rng = np.random.default_rng(5)
rows = []
for label, population, m in [
    ("all parameters", N, 10),
    ("all parameters", N, 100),
    ("all parameters", N, 1000),
    ("`C` only", N_C, 10),
    ("`C` only", N_C, 50),
]:
    exact = chance_of_catching(population, k, m)
    sim = simulated(population, k, m, TRIALS, rng)
    # the simulation agrees within 4 standard errors of a binomial proportion
    tolerance = 4 * np.sqrt(max(exact * (1 - exact), 1e-4) / TRIALS)
    rows.append(
        [
            label,
            given(population, shown_as=str),
            given(m, shown_as=str),
            checked(
                exact,
                against=1 - np.prod([(population - k - i) / (population - i) for i in range(m)]),
                rtol=1e-9,
                shown_as=lambda v: f"{v:.3f}",
            ),
            checked(sim, against=exact, atol=tolerance, shown_as=lambda v: f"{v:.3f}"),
        ]
    )
print(
    md_table(
        [
            "sampled from",
            "entries",
            "sample size m",
            "chance of catching (exact)",
            text("in {t} simulated checks", t=given(TRIALS)),
        ],
        rows,
        align=["left", "right", "right", "right", "right"],
    )
)
print()


def needed(population, probability=0.99):
    return next(m for m in range(1, population + 1) if chance_of_catching(population, k, m) >= probability)


def needed_by_product(population, probability=0.99):
    """The same count from the running product of the miss probabilities (N-k-i)/(N-i)."""
    miss = np.cumprod([(population - k - i) / (population - i) for i in range(population - k + 1)])
    return int(np.argmax(1 - miss >= probability)) + 1


m_all, m_C = needed(N), needed(N_C)
# with replacement the chance would be 1 - (1 - k/N)^m: smaller, so it asks for more entries
approx_all = int(np.ceil(np.log(0.01) / np.log(1 - k / N)))
assert approx_all >= m_all
# m_C entries from every tensor (all entries of a smaller one): fewer than one pool needs, and the
# same chance for this bug, which lives in C
sizes = [example.params[name].size for name in net.PARAM_NAMES]
per_tensor_total = sum(min(m_C, size) for size in sizes)
assert per_tensor_total < m_all and chance_of_catching(N_C, k, m_C) >= 0.99
print(
    text(
        "The bug replaces `{line}` by the same call on `Xb[:-1]` and `demb[:-1]`: it drops the last "
        "example of the batch. Only the rows of `C` for that example's {c} distinct characters "
        "change, so a per-entry check flags {k} of the {N} parameter entries (all of them in `C`, "
        "every other entry of `C` passes). Sampling entries at random from all parameters, you need "
        "{m_all} of them for a {p:.0%} chance of catching it (the estimate for draws with "
        "replacement, $\\lceil \\ln(1 - p) / \\ln(1 - k/N) \\rceil$ = {approx}, is a little "
        "pessimistic); sampling within `C`, {m_C}. What counts is the fraction of wrong entries in "
        "what you sample from: {k} of `C`'s {N_C}, against {k} of all {N}. So sample tensor by "
        "tensor: {m_C} entries from each of the {T} tensors (all of a smaller one) are {total} in "
        "all, fewer than the pool's {m_all}, with the same {p:.0%} for this bug, and a wrong entry "
        "then names its tensor. A bug that spoils a smaller fraction of its tensor needs more (the "
        "third exercise).",
        line=given(SOURCE_LINE),
        c=checked(len(last_chars), against=len(set(example.Xb[-1].tolist()))),
        k=checked(k, against=len(last_chars) * example.params["C"].shape[1]),
        N=checked(N, against=sum(np.size(example.engine[n]) for n in net.PARAM_NAMES)),
        m_all=checked(m_all, against=needed_by_product(N)),
        p=given(0.99),
        approx=given(approx_all),
        m_C=checked(m_C, against=needed_by_product(N_C)),
        N_C=given(N_C),
        T=checked(len(sizes), against=len(example.params)),
        total=checked(per_tensor_total, against=int(np.minimum(m_C, np.array(sizes)).sum())),
    )
)
