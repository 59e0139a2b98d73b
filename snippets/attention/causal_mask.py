"""The causal mask: the masked scores get a gradient of exactly zero, and a later key or value
does not move an earlier output."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import checked, fmt_array, given, load_snippet_module, text

attn = load_snippet_module(Path(__file__).with_name("_attention.py"))
v = attn.make_inputs(np.random.default_rng(5))
hand = attn.attention_backward(**v)
B, H, T = attn.BATCH, attn.HEADS, attn.LENGTH

# --8<-- [start:zero]
future = np.isinf(v["M"])  # above the diagonal: query i, key j > i
P = attn.forward_values(v["Q"], v["K"], v["V"], v["M"])["P"]
dS = hand["dS"]
exactly_zero = int(np.count_nonzero(dS[..., future] == 0.0))  # P_ij = 0 there, so P_ij (…) = 0
# --8<-- [end:zero]
assert np.all(P[..., future] == 0.0)
assert np.all(dS[..., 0, :] == 0.0) and np.all(P[..., 0, 0] == 1.0)
masked_count = B * H * T * (T - 1) // 2  # a strict upper triangle per (batch, head)

print("One head's $\\bar S$ (rows are queries, columns keys):")
print()
print("```text")
# Checked against the engine's VJP of S -> softmax(S) V, pulled back from the same dO.
engine_dS = make_vjp(lambda s: attn.softmax_last_axis(s) @ v["V"])(
    attn.forward_values(v["Q"], v["K"], v["V"], v["M"])["S"]
)[0](v["dO"])
print(fmt_array(checked(dS[0, 0], against=engine_dS[0, 0], rtol=1e-12, atol=1e-15)))
print("```")
print()
print(
    text(
        "Of the {total} masked entries of $\\bar S$ (a strict upper triangle of {tri} per head, "
        "for each of the {B} by {H} batch-head pairs), {zero} are exactly zero: $P_{{ij}} = 0$ "
        "there, and $\\bar S_{{ij}} = P_{{ij}}(\\cdots)$. The first row is zero everywhere: "
        "the first query sees "
        "one key, its softmax over one entry is the constant one, and a constant has no gradient. "
        "The mask is a constant, so it has no gradient of its own; the entries it hides pass "
        "nothing to $Q$ or $K$.",
        total=checked(dS[..., future].size, against=masked_count),
        tri=checked(int(future.sum()), against=T * (T - 1) // 2),
        B=given(B),
        H=given(H),
        zero=checked(exactly_zero, against=masked_count),
    )
)

# The consequence a reader can test: the first query's output does not depend on the last key.
last_key_effect = np.zeros_like(v["K"])
last_key_effect[..., -1, :] = 1.0
first_output = attn.forward_values(v["Q"], v["K"], v["V"], v["M"])["O"][..., 0, :]
moved = attn.forward_values(v["Q"], v["K"] + last_key_effect, v["V"] + last_key_effect, v["M"])["O"][
    ..., 0, :
]
print()
print(
    text(
        "Moving the last key and value by one in every coordinate changes the first query's "
        "output by {change}: the first row of $P$ has a single nonzero entry.",
        change=checked(float(np.max(np.abs(moved - first_output))), against=0.0),
    )
)

# A query with no visible key at all: its row of scores is all -inf.
nothing_visible = attn.causal_mask(T)
nothing_visible[0, :] = -np.inf  # the first query now sees no key
with np.errstate(invalid="ignore"):
    blind_row = attn.forward_values(v["Q"], v["K"], v["V"], nothing_visible)["P"][..., 0, :]


# --8<-- [start:safe]
def attention_zeroed_after(Q, K, V, M):
    """Zeroes a blind row's weights after the softmax: the value is right, the gradient is not."""
    blind = np.all(np.isneginf(M), axis=-1, keepdims=True)  # (T, 1): rows with no visible key
    S = anp.matmul(Q, anp.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1]) + M
    return anp.matmul(anp.where(blind, 0.0, attn.softmax_last_axis(S)), V)


def attention_blind_rows_safe(Q, K, V, M):
    """The double where: finite scores go into the softmax, zeros come out of it."""
    blind = np.all(np.isneginf(M), axis=-1, keepdims=True)
    S = anp.matmul(Q, anp.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1]) + M
    S = anp.where(blind, 0.0, S)  # no -inf - (-inf) anywhere, so no NaN to multiply by zero
    return anp.matmul(anp.where(blind, 0.0, attn.softmax_last_axis(S)), V)


# --8<-- [end:safe]


def engine_dK(layer):
    return make_vjp(lambda k: layer(v["Q"], k, v["V"], nothing_visible))(v["K"])[0](v["dO"])


with np.errstate(invalid="ignore"):
    zeroed_value = attention_zeroed_after(v["Q"], v["K"], v["V"], nothing_visible)
    zeroed_dK = engine_dK(attention_zeroed_after)
safe_value = attention_blind_rows_safe(v["Q"], v["K"], v["V"], nothing_visible)
safe_dK = engine_dK(attention_blind_rows_safe)
# Independently: an output row that is the constant zero passes nothing back, so the safe layer's
# gradient is plain attention's with that row's upstream gradient set to zero (any finite scores).
reference_mask, reference_dO = nothing_visible.copy(), v["dO"].copy()
reference_mask[0, :], reference_dO[..., 0, :] = 0.0, 0.0
reference = attn.attention_backward(v["Q"], v["K"], v["V"], reference_mask, reference_dO)
print()
print(
    text(
        "Mask every key of the first query instead, and all {nan} of its weights, over every "
        "batch and head, are not a number. Zeroing that row after the softmax "
        "(`attention_zeroed_after` below) repairs the value ({value_nan} entries are not a "
        "number) but not the gradient: {dk_nan} of the {dk_size} entries of $\\bar K$ are, "
        "because the zero the `where` sends to the discarded branch meets that branch's "
        "not-a-number derivatives, and every key feeds the blind row. Replacing the row's scores "
        "before the softmax as well (the double `where`) leaves {safe_nan} entries of the output "
        "or of $\\bar K$ not a number, and $\\bar K$ equals the hand-written backward pass "
        "with the blind row's upstream gradient set to zero.",
        nan=checked(int(np.count_nonzero(np.isnan(blind_row))), against=B * H * T),
        value_nan=checked(int(np.count_nonzero(np.isnan(zeroed_value))), against=0),
        dk_nan=checked(int(np.count_nonzero(np.isnan(zeroed_dK))), against=v["K"].size),
        dk_size=checked(zeroed_dK.size, against=B * H * T * attn.WIDTH),
        safe_nan=checked(
            int(np.count_nonzero(np.isnan(safe_value)) + np.count_nonzero(np.isnan(safe_dK))), against=0
        ),
    )
)
checked(safe_dK, against=reference["dK"], rtol=1e-12, atol=1e-14)
