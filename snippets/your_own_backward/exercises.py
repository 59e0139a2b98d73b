"""Self-test for "Your own backward pass": each answer runs the checker on an edited solution."""

from pathlib import Path

import numpy as np

from bookkit import checked, collapsible, given, load_snippet_module, observed, text

runner = load_snippet_module(Path(__file__).with_name("_run_checker.py"))
checker, worked = runner.checker, runner.checker.worked
ORDER = list(checker.BACKWARD_ORDER)
check_edited, flagged = runner.check_edited, runner.flagged


def title(number: int, words: str) -> str:
    return text("Exercise {k}. " + words, k=given(number))


# 1. A transposed parameter gradient: a leaf, so nothing downstream is spoiled.
report1, ok1 = check_edited(("dW2 = h.T @ dlogits", "dW2 = dlogits.T @ h"))
assert not ok1 and flagged(report1) == ["W2"]
example = worked.worked_example()
print(collapsible(
    title(1, "You write `dW2 = dlogits.T @ h`. Which rows does the checker flag, and why only those?"),
    observed(report1.splitlines()[-1])
    + text(
        "\nOnly `W2`, as a shape mismatch: the product has shape {shape}, the transpose of `W2`'s "
        "{ref}. No other gradient is computed from `dW2`: a parameter is a leaf of the graph, and "
        "its gradient is an output of the backward pass, never an input, so the error cannot "
        "spread.",
        shape=checked(np.shape(example.cache["logits"].T @ example.cache["h"]),
                      against=example.params["W2"].shape[::-1]),
        ref=given(example.params["W2"].shape),
    ),
))
print()

# 2. Forgetting the second use of counts.
report2, ok2 = check_edited(("    dcounts += np.ones_like(counts) * dcounts_sum  # second use: add\n", ""))
bad2 = flagged(report2)
assert not ok2 and bad2[0] == "counts" and "b1" not in bad2
print(collapsible(
    title(2, "Delete the line `dcounts += np.ones_like(counts) * dcounts_sum`. Which row is "
             "flagged first, and how many rows in all?"),
    text(
        "The first row flagged is `{first}`, the tensor whose second use was dropped; the rows "
        "above it (`logprobs` to `counts_sum`) still pass, since they are computed before that "
        "line. Every gradient from `dcounts` down is then wrong "
        "but one: {count} of the {total} rows are flagged. The exception is `b1`: BatchNorm "
        "subtracts the batch mean right after `b1` is added, so the loss does not depend on `b1` "
        "(its true gradient is zero, largest entry {b1:.0e} in `ad_core`'s) and the BatchNorm "
        "backward pass returns column sums of zero however wrong its input. The report's last line:\n\n",
        first=checked(bad2[0], against=ORDER[ORDER.index("counts_sum") + 1]),
        count=checked(len(bad2), against=len(ORDER) - ORDER.index("counts") - 1),
        b1=checked(float(np.abs(example.engine["b1"]).max()), against=0.0, atol=1e-15),
        total=checked(len(ORDER), against=len(example.engine)),
    ) + observed(report2.splitlines()[-1]),
))
print()

# 3. The broken-in-the-middle case: an error raised half-way.
report3, ok3 = check_edited(("dembcat = dhprebn @ W1.T", "dembcat = dhprebn @ W1"))
assert not ok3 and "raised ValueError at line" in report3
reached = [name for name, line in runner.report_rows(report3).items() if "NOT FILLED IN" not in line
           and "MISSING" not in line]
assert reached == ORDER[: ORDER.index("hprebn") + 1]
print(collapsible(
    title(3, "Write `dembcat = dhprebn @ W1` (no transpose). What does the checker do?"),
    text(
        "NumPy refuses the product (`dhprebn` is {a}, `W1` is {b}), so `backward` raises. The "
        "checker catches the error, compares the gradients computed before it ({n} rows, "
        "`logprobs` to `hprebn`, all agree), reports the rest as missing and names the line:\n\n",
        a=given(example.cache["hprebn"].shape),
        b=given(example.params["W1"].shape),
        n=checked(len(reached), against=ORDER.index("hprebn") + 1),
    ) + observed("\n".join(report3.splitlines()[-2:])),
))
