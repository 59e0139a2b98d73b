"""The embedding backward with repeated tokens: indexed += drops repeats, np.add.at keeps them."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import assert_shape_then_close, central_differences, fmt_array, md_table

vocab, width = 5, 3
tokens = np.array([2, 4, 2, 0, 2, 4])  # token 2 appears three times, token 4 twice
rng = np.random.default_rng(31)
embedding = rng.normal(size=(vocab, width))
upstream = rng.normal(size=(tokens.size, width))  # dL/d(looked-up rows)


def loss(table):
    return anp.sum(table[tokens] * upstream)


# --8<-- [start:two_backwards]
gradient_buggy = np.zeros_like(embedding)
gradient_buggy[tokens] += upstream  # buffered: the last write to a row wins

gradient_add_at = np.zeros_like(embedding)
np.add.at(gradient_add_at, tokens, upstream)  # unbuffered: every occurrence is added
# --8<-- [end:two_backwards]

gradient_engine = grad(loss)(embedding)


gradient_numeric = central_differences(lambda t: float(loss(t)), embedding)  # the oracle
assert_shape_then_close(gradient_add_at, gradient_engine)
assert_shape_then_close(gradient_engine, gradient_numeric, rtol=1e-6, atol=1e-8)

counts = np.bincount(tokens, minlength=vocab)
rows = []
for token in range(vocab):
    buggy_ok = np.allclose(gradient_buggy[token], gradient_numeric[token], rtol=1e-6, atol=1e-8)
    # The buggy version is right exactly for the tokens that appear at most once.
    assert buggy_ok == (counts[token] <= 1)
    if counts[token] > 1:
        last = np.flatnonzero(tokens == token)[-1]
        assert np.array_equal(gradient_buggy[token], upstream[last])
    rows.append(
        [
            str(token),
            str(counts[token]),
            f"`{fmt_array(gradient_buggy[token])}`",
            f"`{fmt_array(gradient_add_at[token])}`",
            f"`{fmt_array(gradient_engine[token])}`",
            "yes" if buggy_ok else "**no**",
        ]
    )

print(
    md_table(
        [
            "token",
            "occurrences",
            "`dC[idx] += g`",
            "`np.add.at`",
            "engine",
            "`+=` matches finite differences",
        ],
        rows,
    )
)
print()
wrong_rows = [int(t) for t in range(vocab) if counts[t] > 1]
print(
    f"Tokens `{tokens.tolist()}`: the engine, `np.add.at` and central finite differences agree on "
    f"every row. The indexed `+=` is wrong on rows `{wrong_rows}`, exactly the tokens that occur "
    "more than once, and on each of them it holds only the contribution of the last occurrence. "
    "Rows of tokens that occur once, or never, come out right, which is why the bug survives "
    "tests on batches without repeats."
)
