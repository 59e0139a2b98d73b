"""Self-test for the copies-and-gathers chapter: every answer computed and checked here."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import checked, collapsible, fmt_array, fmt_array_inline, given, text

rng = np.random.default_rng(5)
size, copies = 4, 3
x = rng.normal(size=size)
upstream = np.arange(size * copies, dtype=float)  # readable numbers make the grouping visible


def as_code(v):
    return f"`{fmt_array(v)}`"


# Exercise 1: repeat groups neighbours, tile groups strided positions.
vjp_repeat, _ = make_vjp(lambda v: anp.repeat(v, copies))(x)
vjp_tile, _ = make_vjp(lambda v: anp.tile(v, copies))(x)
repeat_answer = upstream.reshape(size, copies).sum(axis=1)
tile_answer = upstream.reshape(copies, size).sum(axis=0)
# The same sums by loops: repeat's copies of entry i sit at i·copies … i·copies + copies - 1,
# tile's at i, i + size, i + 2·size, ...
repeat_by_loops = np.array([sum(upstream[i * copies + c] for c in range(copies)) for i in range(size)])
tile_by_loops = np.array([sum(upstream[i + c * size] for c in range(copies)) for i in range(size)])
assert not np.allclose(repeat_answer, tile_answer)

print(
    collapsible(
        text(
            "Exercise {number}. x has shape {shape} and g = arange({length}). What are the VJPs "
            "of np.repeat(x, {copies}) and np.tile(x, {copies})?",
            number=given(1),
            shape=given(x.shape),
            length=given(size * copies),
            copies=given(copies),
        ),
        text(
            "`repeat` puts the {copies} copies of each entry next to each other, so its VJP sums "
            "consecutive blocks: `g.reshape({size}, {copies}).sum(axis=1)` = {repeat}. `tile` repeats "
            "the whole vector, so its VJP sums entries {size} apart: "
            "`g.reshape({copies}, {size}).sum(axis=0)` = {tile}. Both are sums over copies; only the "
            "bookkeeping of which positions are copies differs. The engine's VJPs return exactly "
            "these: {engine_repeat} and {engine_tile}.",
            copies=given(copies),
            size=given(size),
            repeat=checked(repeat_answer, against=repeat_by_loops, shown_as=as_code),
            tile=checked(tile_answer, against=tile_by_loops, shown_as=as_code),
            engine_repeat=checked(vjp_repeat(upstream), against=repeat_by_loops, shown_as=as_code),
            engine_tile=checked(vjp_tile(upstream), against=tile_by_loops, shown_as=as_code),
        ),
    )
)

# Exercise 2: the adjoint of a strided slice.
vector = rng.normal(size=7)
slice_cotangent = rng.normal(size=4)
vjp_slice, _ = make_vjp(lambda v: v[::2])(vector)
scattered = np.zeros(7)
for k, position in enumerate(range(0, vector.size, 2)):
    scattered[position] = slice_cotangent[k]
read_positions = np.flatnonzero(vjp_slice(np.ones(slice_cotangent.size))).tolist()  # from the engine
assert np.isclose(np.sum(vector[::2] * slice_cotangent), np.sum(vector * scattered), rtol=1e-12)

print(
    collapsible(
        text(
            "Exercise {number}. What is the VJP of `v[::2]` for v of shape {shape}? Is a plain assignment "
            "enough here, or do you need np.add.at?",
            number=given(2),
            shape=given(vector.shape),
        ),
        text(
            "The slice reads positions {positions}, each once. Its adjoint writes the cotangent back "
            "to those positions and leaves zeros elsewhere: {scattered} for the cotangent "
            "{cotangent}. No index repeats, so plain assignment is enough; the inner-product "
            "identity holds and the engine's VJP matches.",
            positions=checked(
                read_positions,
                against=list(range(0, vector.size, 2)),
                shown_as=lambda v: ", ".join(map(str, v)),
            ),
            scattered=checked(vjp_slice(slice_cotangent), against=scattered, shown_as=as_code),
            cotangent=given(slice_cotangent, shown_as=as_code),
        ),
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
places_of_one = [position for position, t in enumerate(tokens) if t == 1]
assert np.isclose(np.linalg.norm(buggy[1] - right[1]), np.linalg.norm(rows[:2].sum(axis=0)))

print(
    collapsible(
        text(
            "Exercise {number}. Tokens {tokens}: what does dC[tokens] += g leave in row {row}, and "
            "what is missing?",
            number=given(3),
            tokens=given(tokens.tolist()),
            row=given(1),
        ),
        text(
            "Fancy-index assignment reads `dC[tokens]`, adds `g`, and writes the rows back in order; "
            "the {writes} writes to row {row} overwrite each other, so row {row} ends up with the last "
            "occurrence's cotangent only, {buggy}. The correct row is the sum of all {writes}, "
            "{right}; the missing part is the sum of the earlier occurrences.",
            writes=checked(int(np.sum(tokens == 1)), against=len(places_of_one)),
            row=given(1),
            buggy=checked(buggy[1], against=rows[places_of_one[-1]], shown_as=as_code),
            right=checked(
                right[1], against=sum(rows[p] for p in places_of_one), rtol=1e-12, shown_as=as_code
            ),
        ),
    )
)

# Exercise 4: scatter-add via a matrix product.
one_hot = np.eye(vocab)[tokens]  # (len(tokens), vocab), the gather matrix P

print(
    collapsible(
        text(
            "Exercise {number}. Write the embedding backward as one matrix product, without np.add.at.",
            number=given(4),
        ),
        text(
            "Gathering is multiplication by the one-hot matrix `P = np.eye(vocab)[tokens]`, so the "
            "backward is `P.T @ g`. For the tokens above it gives {product}, the same as `np.add.at`. "
            "It costs a dense `(vocab, len(tokens))` product, which is why this engine's `untake` "
            "scatters with `np.add.at` instead.",
            product=checked(
                one_hot.T @ rows, against=right, rtol=1e-12, shown_as=lambda v: f"`{fmt_array_inline(v)}`"
            ),
        ),
    )
)
