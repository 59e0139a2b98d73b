"""The embedding backward with repeated tokens: indexed += drops repeats, np.add.at keeps them."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import (
    assert_shape_then_close,
    central_differences,
    checked,
    fmt_array,
    given,
    md_table,
    text,
    yes_no,
)

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

FD = {"rtol": 1e-6, "atol": 1e-8}  # central differences of a linear loss: rounding error only
counts = np.bincount(tokens, minlength=vocab)


def what_buffered_assignment_leaves(token: int) -> np.ndarray:
    """NumPy's `a[idx] += b` reads all listed rows first, then writes them back in order: the
    last occurrence's write wins, and a row never listed keeps its zeros."""
    places = [position for position, t in enumerate(tokens) if t == token]
    return upstream[places[-1]] if places else np.zeros(width)


def as_code(v):
    return f"`{fmt_array(v)}`"


rows = []
wrong = []
for token in range(vocab):
    buggy_ok = np.allclose(gradient_buggy[token], gradient_numeric[token], **FD)
    if not buggy_ok:
        wrong.append(token)
    rows.append(
        [
            given(token, shown_as=str),
            checked(int(counts[token]), against=sum(int(t == token) for t in tokens), shown_as=str),
            checked(gradient_buggy[token], against=what_buffered_assignment_leaves(token), shown_as=as_code),
            checked(gradient_add_at[token], against=gradient_numeric[token], **FD, shown_as=as_code),
            checked(gradient_engine[token], against=gradient_numeric[token], **FD, shown_as=as_code),
            # The buggy version is right exactly for the tokens that appear at most once.
            checked(buggy_ok, against=bool(counts[token] <= 1), shown_as=lambda v: yes_no(v, no="**no**")),
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
print(
    text(
        "Tokens `{tokens}`: the engine, `np.add.at` and central finite differences agree on "
        "every row. The indexed `+=` is wrong on rows {wrong}, exactly the tokens that occur "
        "more than once, and on each of them it holds only the contribution of the last occurrence. "
        "Rows of tokens that occur once, or never, come out right, which is why the bug survives "
        "tests on batches without repeats.",
        tokens=given(tokens.tolist()),
        wrong=checked(
            wrong, against=[int(t) for t in np.flatnonzero(counts > 1)], shown_as=lambda v: f"`{v}`"
        ),
    )
)
