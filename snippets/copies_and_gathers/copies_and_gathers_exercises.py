"""Self-test for the copies-and-gathers chapter: every answer computed and checked here."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import assert_shape_then_close, collapsible, fmt_array, fmt_array_inline

rng = np.random.default_rng(5)
size, copies = 4, 3
x = rng.normal(size=size)
upstream = np.arange(size * copies, dtype=float)  # readable numbers make the grouping visible

# Exercise 1: repeat groups neighbours, tile groups strided positions.
vjp_repeat, _ = make_vjp(lambda v: anp.repeat(v, copies))(x)
vjp_tile, _ = make_vjp(lambda v: anp.tile(v, copies))(x)
repeat_answer = upstream.reshape(size, copies).sum(axis=1)
tile_answer = upstream.reshape(copies, size).sum(axis=0)
assert_shape_then_close(vjp_repeat(upstream), repeat_answer)
assert_shape_then_close(vjp_tile(upstream), tile_answer)
assert not np.allclose(repeat_answer, tile_answer)

print(
    collapsible(
        f"Exercise 1. x has shape ({size},) and g = arange({size * copies}). What are the VJPs "
        f"of np.repeat(x, {copies}) and np.tile(x, {copies})?",
        f"`repeat` puts the {copies} copies of each entry next to each other, so its VJP sums "
        f"consecutive blocks: `g.reshape({size}, {copies}).sum(axis=1)` = "
        f"`{fmt_array(repeat_answer)}`. `tile` repeats the whole vector, so its VJP sums entries "
        f"{size} apart: `g.reshape({copies}, {size}).sum(axis=0)` = `{fmt_array(tile_answer)}`. "
        "Both are sums over copies; only the bookkeeping of which positions are copies differs. "
        "The engine's VJPs return exactly these.",
    )
)

# Exercise 2: the adjoint of a strided slice.
vector = rng.normal(size=7)
slice_cotangent = rng.normal(size=4)
vjp_slice, _ = make_vjp(lambda v: v[::2])(vector)
scattered = np.zeros(7)
scattered[::2] = slice_cotangent
assert_shape_then_close(vjp_slice(slice_cotangent), scattered)
assert np.isclose(np.sum(vector[::2] * slice_cotangent), np.sum(vector * scattered), rtol=1e-12)

print(
    collapsible(
        "Exercise 2. What is the VJP of v[::2] for v of shape (7,)? Is a plain assignment "
        "enough here, or do you need np.add.at?",
        "The slice reads positions 0, 2, 4, 6, each once. Its adjoint writes the cotangent back to "
        "those positions and leaves zeros elsewhere: "
        f"`{fmt_array(scattered)}` for the cotangent `{fmt_array(slice_cotangent)}`. No index "
        "repeats, so plain assignment is enough; the inner-product identity holds and the "
        "engine's VJP matches.",
    )
)

# Exercise 3: what the buggy += keeps.
vocab, width = 3, 2
tokens = np.array([1, 1, 1, 2])
rows = rng.normal(size=(tokens.size, width))
buggy = np.zeros((vocab, width))
buggy[tokens] += rows
right = np.zeros((vocab, width))
np.add.at(right, tokens, rows)
assert np.array_equal(buggy[1], rows[2])
assert_shape_then_close(right[1], rows[:3].sum(axis=0))
assert np.isclose(np.linalg.norm(buggy[1] - right[1]), np.linalg.norm(rows[:2].sum(axis=0)))

print(
    collapsible(
        f"Exercise 3. Tokens {tokens.tolist()}: what does dC[tokens] += g leave in row 1, and "
        "what is missing?",
        "Fancy-index assignment reads `dC[tokens]`, adds `g`, and writes the rows back in order; "
        "the three writes to row 1 overwrite each other, so row 1 ends up with the last "
        f"occurrence's cotangent only, `{fmt_array(buggy[1])}`. The correct row is the sum of all "
        f"three, `{fmt_array(right[1])}`; the missing part is the sum of the first two occurrences.",
    )
)

# Exercise 4: scatter-add via a matrix product.
one_hot = np.eye(vocab)[tokens]  # (len(tokens), vocab), the gather matrix P
assert_shape_then_close(one_hot.T @ rows, right)

print(
    collapsible(
        "Exercise 4. Write the embedding backward as one matrix product, without np.add.at.",
        "Gathering is multiplication by the one-hot matrix `P = np.eye(vocab)[tokens]`, so the "
        "backward is `P.T @ g`. For the tokens above it gives "
        f"`{fmt_array_inline(one_hot.T @ rows)}`, the same as `np.add.at`. It costs a dense "
        "`(vocab, len(tokens))` product, which is why libraries scatter instead.",
    )
)
