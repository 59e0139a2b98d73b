"""The shape-alignment rule: with distinct sizes, only one product of the available factors fits."""

import itertools

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import checked, given, md_table, text


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
            options.append((label, left, right, result))
    return options


def shown_shape(v):
    return f"`{tuple(v)}`"


def alignment_table(first, second, names, target_shape, engine_gradient):
    """One row per candidate; `engine_gradient` is the engine's VJP, the independent answer."""
    rows, fitting, right_values = [], [], []
    for label, left, right, result in candidates(first, second, names):
        inner_sizes_differ = left.shape[1] != right.shape[0]
        if result is None:
            outcome = checked(
                True, against=inner_sizes_differ, shown_as=lambda v: "inner sizes differ: no product"
            )
        else:
            shape = checked(list(result.shape), against=[left.shape[0], right.shape[1]], shown_as=shown_shape)
            if result.shape != target_shape:
                outcome = text("gives {shape}: wrong shape", shape=shape)
            else:
                fitting.append(label)
                correct = bool(np.allclose(result, engine_gradient, rtol=1e-12, atol=1e-12))
                if correct:
                    right_values.append(label)
                outcome = text(
                    "gives {shape}: {verdict}",
                    shape=shape,
                    verdict="the gradient" if correct else "shape fits, values wrong",
                )
        rows.append(
            [
                f"`{label}`",
                text("{a} @ {b}", a=given(left.shape), b=given(right.shape)),
                outcome,
            ]
        )
    return rows, fitting, right_values


def engine_gradients(h, W, dZ):
    """dh and dW of Z = h @ W for the upstream gradient dZ, from the engine's VJPs."""
    dh = make_vjp(lambda x: anp.matmul(x, W))(h)[0](dZ)
    dW = make_vjp(lambda w: anp.matmul(h, w))(W)[0](dZ)
    return dh, dW


rng = np.random.default_rng(4)
# --8<-- [start:distinct]
batch, hidden, vocab = 3, 4, 5  # distinct sizes
h = rng.normal(size=(batch, hidden))
W = rng.normal(size=(hidden, vocab))
dZ = rng.normal(size=(batch, vocab))
# --8<-- [end:distinct]

engine_dh, engine_dW = engine_gradients(h, W, dZ)
rows_dh, fitting_dh, right_dh = alignment_table(dZ, W, ("dZ", "W"), h.shape, engine_dh)
rows_dW, fitting_dW, right_dW = alignment_table(h, dZ, ("h", "dZ"), W.shape, engine_dW)
assert fitting_dh == right_dh == ["dZ @ Wᵀ"]
assert fitting_dW == right_dW == ["hᵀ @ dZ"]

print(
    text("**`dh` must have h's shape {shape}**; the factors at hand are `dZ` and `W`:", shape=given(h.shape))
)
print()
print(md_table(["candidate", "shapes", "outcome"], rows_dh))
print()
print(
    text("**`dW` must have W's shape {shape}**; the factors at hand are `h` and `dZ`:", shape=given(W.shape))
)
print()
print(md_table(["candidate", "shapes", "outcome"], rows_dW))
print()

# With all sizes equal the rule loses its power.
size = 3
h_sq, W_sq, dZ_sq = (rng.normal(size=(size, size)) for _ in range(3))
_, fitting_square, right_square = alignment_table(
    dZ_sq, W_sq, ("dZ", "W"), h_sq.shape, engine_gradients(h_sq, W_sq, dZ_sq)[0]
)
wrong_but_fitting = [label for label in fitting_square if label not in right_square]
number_of_candidates = len(candidates(dZ, W, ("dZ", "W")))
formula_disagrees = sum(
    not np.allclose(result, dZ_sq @ W_sq.T)
    for _, _, _, result in candidates(dZ_sq, W_sq, ("dZ", "W"))
    if result is not None and result.shape == h_sq.shape
)
print(
    text(
        "Of the {candidates} candidates exactly {one} fits each target when the sizes are {B}, {H} "
        "and {V}. Make every size {size} and all {fit} candidates for `dh` have the right shape, "
        "{wrong} of them with wrong values. Test hand-written backward passes with distinct sizes.",
        candidates=given(number_of_candidates),
        # Fitting candidates against candidates equal to the engine's gradient (which is one).
        one=checked(len(fitting_dh), against=len(right_dh), shown_as=lambda v: "one" if v == 1 else str(v)),
        B=given(batch),
        H=given(hidden),
        V=given(vocab),
        size=given(size),
        fit=checked(len(fitting_square), against=number_of_candidates),
        # Counted a second way: fitting candidates that differ from the formula dZ @ Wᵀ.
        wrong=checked(len(wrong_but_fitting), against=formula_disagrees),
    )
)
assert len(right_dh) == 1 and len(right_square) == 1
