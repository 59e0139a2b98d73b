"""Why subtract the row maximum, and why a fused log-softmax is safer still."""

import numpy as np

from bookkit import checked, given, md_table, text

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



def six_digits(v: np.ndarray) -> str:
    return f"`{np.array2string(v, precision=6)}`"


def loss_text(value: float, against: float, digits: int) -> str:
    return text("loss {v}", v=checked(value, against=against, rtol=1e-15,
                                      shown_as=lambda v: f"{v:.{digits}f}"))


def infinite(value: float) -> str:
    # what NumPy returned, shown as it prints it
    return text("loss `{v}`", v=checked(str(value), against=str(float("inf"))))


print(
    md_table(
        ["logits", "target", "exp, normalise, log", "max-shift, exp, normalise, log", "fused log-sum-exp"],
        [
            [
                given(big.astype(int).tolist(), shown_as=lambda v: f"`{v}`"),
                given(target, shown_as=str),
                text("probabilities {p}", p=checked(str(naive), against=str(np.full(3, np.nan)),
                                                    shown_as=lambda v: f"`{v}`")),
                text("probabilities {p}, ",
                     p=checked(stable, against=closed_form, rtol=1e-15, shown_as=six_digits))
                + loss_text(stable_loss, float(np.log1p(np.exp(-1.0) + np.exp(-2.0))), 6),
                loss_text(fused_big, float(np.log1p(np.exp(-1.0) + np.exp(-2.0))), 6),
            ],
            [
                given(tiny.astype(int).tolist(), shown_as=lambda v: f"`{v}`"),
                given(tiny_target, shown_as=str),
                infinite(naive_tiny_loss),
                text("probabilities {p}, ", p=checked(p, against=np.array([1.0, 0.0]),
                                                      shown_as=lambda v: f"`{np.array2string(v)}`"))
                + infinite(split_loss),
                # log(e^0 + e^-1000) - (-1000) = 1000 + log1p(e^-1000)
                text("loss {v}", v=checked(float(fused_loss), against=1000.0 + np.log1p(np.exp(-1000.0)),
                                           rtol=1e-15, shown_as=lambda v: f"{v:.1f}")),
            ],
        ],
    )
)
