"""The shape-alignment rule: with distinct sizes, only one product of the available factors fits."""

import itertools

import numpy as np

from bookkit import fmt_shape, md_table


def candidates(first: np.ndarray, second: np.ndarray, names: tuple[str, str]) -> list[tuple]:
    """Every product of the two factors, either order, each transposed or not."""
    options = []
    for (a, a_name), (b, b_name) in [
        ((first, names[0]), (second, names[1])),
        ((second, names[1]), (first, names[0])),
    ]:
        for transpose_a, transpose_b in itertools.product([False, True], repeat=2):
            left = a.T if transpose_a else a
            right = b.T if transpose_b else b
            label = f"{a_name}{'ᵀ' if transpose_a else ''} @ {b_name}{'ᵀ' if transpose_b else ''}"
            try:
                result = left @ right
            except ValueError:
                result = None
            options.append((label, left.shape, right.shape, result))
    return options


def alignment_table(first, second, names, target_shape, right_answer):
    rows, fitting = [], []
    for label, left_shape, right_shape, result in candidates(first, second, names):
        if result is None:
            verdict = "inner sizes differ: no product"
        elif result.shape != target_shape:
            verdict = f"gives `{fmt_shape(result.shape)}`: wrong shape"
        else:
            fitting.append(label)
            correct = np.allclose(result, right_answer)
            verdict = f"gives `{fmt_shape(result.shape)}`" + (
                ": the gradient" if correct else ": shape fits, values wrong"
            )
        rows.append([f"`{label}`", f"`{fmt_shape(left_shape)}` @ `{fmt_shape(right_shape)}`", verdict])
    return rows, fitting


rng = np.random.default_rng(4)
# --8<-- [start:distinct]
batch, hidden, vocab = 3, 4, 5  # distinct sizes
h = rng.normal(size=(batch, hidden))
W = rng.normal(size=(hidden, vocab))
dZ = rng.normal(size=(batch, vocab))
# --8<-- [end:distinct]

rows_dh, fitting_dh = alignment_table(dZ, W, ("dZ", "W"), h.shape, dZ @ W.T)
rows_dW, fitting_dW = alignment_table(h, dZ, ("h", "dZ"), W.shape, h.T @ dZ)
assert fitting_dh == ["dZ @ Wᵀ"]
assert fitting_dW == ["hᵀ @ dZ"]

print(f"**`dh` must have h's shape `{fmt_shape(h.shape)}`**; the factors at hand are `dZ` and `W`:")
print()
print(md_table(["candidate", "shapes", "outcome"], rows_dh))
print()
print(f"**`dW` must have W's shape `{fmt_shape(W.shape)}`**; the factors at hand are `h` and `dZ`:")
print()
print(md_table(["candidate", "shapes", "outcome"], rows_dW))
print()

# With all sizes equal the rule loses its power.
size = 3
h_sq, W_sq, dZ_sq = (rng.normal(size=(size, size)) for _ in range(3))
_, fitting_square = alignment_table(dZ_sq, W_sq, ("dZ", "W"), h_sq.shape, dZ_sq @ W_sq.T)
wrong_but_fitting = [label for label in fitting_square if label != "dZ @ Wᵀ"]
assert len(fitting_square) == 8 and len(wrong_but_fitting) == 7
print(
    f"Of the {len(candidates(dZ, W, ('dZ', 'W')))} candidates exactly one fits each target when "
    f"the sizes are {batch}, {hidden} and {vocab}. Make every size {size} and all "
    f"{len(fitting_square)} candidates for `dh` have the right shape, {len(wrong_but_fitting)} of "
    "them with wrong values. Test hand-written backward passes with distinct sizes."
)
