"""Why subtract the row maximum, and why a fused log-softmax is safer still."""

import numpy as np

from bookkit import fmt_array, fmt_number, md_table

big = np.array([1000.0, 1001.0, 999.0])
with np.errstate(over="ignore", invalid="ignore"):
    # --8<-- [start:naive]
    naive = np.exp(big) / np.exp(big).sum()          # exp(1000) overflows to inf; inf/inf = nan
    # --8<-- [end:naive]
# --8<-- [start:stable]
shifted = big - big.max()                             # [-1, 0, -2]: the largest exp is 1
stable = np.exp(shifted) / np.exp(shifted).sum()
# --8<-- [end:stable]
target = 1
stable_loss = -np.log(stable[target])

# Closed form for the shifted row: e^0 / (e^-1 + e^0 + e^-2).
closed_form = np.exp(shifted) / (np.exp(-1.0) + 1.0 + np.exp(-2.0))
assert not np.all(np.isfinite(naive))
np.testing.assert_allclose(stable, closed_form, rtol=1e-15)
np.testing.assert_allclose(stable_loss, np.log1p(np.exp(-1.0) + np.exp(-2.0)), rtol=1e-15)

tiny = np.array([0.0, -1000.0])
tiny_target = 1
with np.errstate(divide="ignore", under="ignore"):
    # --8<-- [start:split_log]
    p = np.exp(tiny - tiny.max()) / np.exp(tiny - tiny.max()).sum()   # p[1] underflows to 0.0
    split_loss = -np.log(p[tiny_target])                               # -log(0) = inf
    # --8<-- [end:split_log]
# --8<-- [start:fused]
log_normaliser = tiny.max() + np.log(np.exp(tiny - tiny.max()).sum())   # log-sum-exp
fused_loss = log_normaliser - tiny[tiny_target]                          # never takes log(0)
# --8<-- [end:fused]
assert p[tiny_target] == 0.0 and np.isinf(split_loss)
with np.errstate(divide="ignore", under="ignore"):
    naive_tiny_loss = -np.log(np.exp(tiny)[tiny_target] / np.exp(tiny).sum())
assert np.isinf(naive_tiny_loss)
fused_big = float(np.log(np.exp(shifted).sum()) - shifted[target])
assert abs(fused_big - stable_loss) < 1e-15
assert np.isfinite(fused_loss) and abs(fused_loss - 1000.0) < 1e-9

print(
    md_table(
        ["logits", "target", "exp, normalise, log", "max-shift, exp, normalise, log", "fused log-sum-exp"],
        [
            [
                f"`{big.astype(int).tolist()}`",
                str(target),
                f"probabilities `{fmt_array(naive)}`",
                f"probabilities `{fmt_array(stable, precision=6)}`, loss {stable_loss:.6f}",
                f"loss {fused_big:.6f}",
            ],
            [
                f"`{tiny.astype(int).tolist()}`",
                str(tiny_target),
                f"loss `{naive_tiny_loss}`",
                f"probabilities `{fmt_array(p)}`, loss `{split_loss}`",
                f"loss {fmt_number(fused_loss)}",
            ],
        ],
    )
)
