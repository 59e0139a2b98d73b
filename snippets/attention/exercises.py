"""Self-test for the attention chapter: every answer computed and checked here."""

from pathlib import Path

import numpy as np

from ad_core import make_vjp
from bookkit import (
    assert_shape_then_close,
    central_differences,
    checked,
    collapsible,
    given,
    load_snippet_module,
    text,
)

attn = load_snippet_module(Path(__file__).with_name("_attention.py"))
rng = np.random.default_rng(31)
v = attn.make_inputs(rng)
hand = attn.attention_backward(**v)

# Exercise 1: every row of dS sums to zero.
row_sums = hand["dS"].sum(axis=-1)
shift = rng.normal(size=(*v["M"].shape[:-1], 1))  # one constant per row of scores
S = attn.forward_values(v["Q"], v["K"], v["V"], v["M"])["S"]
assert_shape_then_close(attn.softmax_last_axis(S + shift), attn.softmax_last_axis(S), rtol=1e-12, atol=1e-15)

print(
    collapsible(
        text(
            "Exercise {number}. Without computing it: what is the sum of each row of $\\bar S$?",
            number=given(1),
        ),
        text(
            "Zero. $\\sum_j P_{{ij}}(\\bar P_{{ij}} - \\langle \\bar P_i, P_i\\rangle) = \\langle \\bar P_i, "
            "P_i\\rangle - \\langle \\bar P_i, P_i\\rangle \\sum_j P_{{ij}} = 0$, because a row of $P$ "
            "sums to one. The reason behind it: adding a constant to a row of scores does not change "
            "its softmax, so the gradient has no component along $(1, \\dots, 1)$. On the chapter's "
            "inputs the largest row sum is {largest:.0e} in absolute value, rounding.",
            largest=checked(
                float(np.max(np.abs(row_sums))), against=0.0, atol=1e-14, shown_as="{:.0e}".format
            ),
        ),
    )
)

# Exercise 2: a mask that lets each query see only its own key.
own_key_only = np.where(np.eye(attn.LENGTH, dtype=bool), 0.0, -np.inf)
diagonal = {**v, "M": own_key_only}
engine_diagonal = attn.engine_gradients(**diagonal)
assert_shape_then_close(engine_diagonal["dV"], v["dO"])
zero_entries = sum(int(np.count_nonzero(engine_diagonal[n] == 0.0)) for n in ("dQ", "dK"))

print(
    collapsible(
        text(
            "Exercise {number}. The mask is $0$ on the diagonal and $-\\infty$ elsewhere: each query "
            "sees only its own key. What are $\\bar Q$, $\\bar K$ and $\\bar V$?",
            number=given(2),
        ),
        text(
            "$P = I$ whatever $Q$ and $K$ are, so $O = V$: $\\bar V = \\bar O$, and $\\bar Q = \\bar K = 0$ "
            "because the output does not depend on them. Every row of $P$ is one-hot, so $\\bar S = "
            "P \\odot (\\bar P - \\langle \\bar P, P\\rangle) = 0$. The engine gives $\\bar V = \\bar O$ "
            "and {zeros} exact zeros in $\\bar Q$ and $\\bar K$ together.",
            zeros=checked(zero_entries, against=2 * v["Q"].size),
        ),
    )
)

# Exercise 3: self-attention with queries and keys from one tensor.
X = v["Q"]


def same_tensor(x):
    return attn.attention(x, x, v["V"], v["M"])


engine_X = make_vjp(same_tensor)(X)[0](v["dO"])
at_X = attn.attention_backward(X, X, v["V"], v["M"], v["dO"])
assert_shape_then_close(engine_X, at_X["dQ"] + at_X["dK"], rtol=1e-12, atol=1e-14)
numeric_X = central_differences(lambda x: attn.numeric_loss(x, x, v["V"], v["M"], v["dO"]), X)
assert_shape_then_close(engine_X, numeric_X, rtol=1e-6, atol=1e-7)
assert not np.allclose(engine_X, at_X["dQ"], atol=1e-3)

print(
    collapsible(
        text(
            "Exercise {number}. Queries and keys are one tensor $X$: $S = X X^\\top / \\sqrt d$. What "
            "is $\\bar X$?",
            number=given(3),
        ),
        text(
            "$X$ is used twice, so two contributions add ([Fan-out](../part1/fan-out.md)): "
            "$\\bar X = \\bar S X / \\sqrt d + \\bar S^\\top X / \\sqrt d "
            "= (\\bar S + \\bar S^\\top) X / \\sqrt d$, "
            "that is `dQ + dK` evaluated at $Q = K = X$. The engine's gradient equals it, and central "
            "differences agree; `dQ` alone misses by {miss:.2f}.",
            miss=checked(
                float(np.max(np.abs(engine_X - at_X["dQ"]))),
                against=float(np.max(np.abs(at_X["dK"]))),
                rtol=1e-10,
            ),
        ),
    )
)
