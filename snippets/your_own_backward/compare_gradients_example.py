"""`compare_gradients` on two small tensors: one right up to rounding, one with the wrong shape."""

import numpy as np

from ad_core.test_util import COMPARE_ATOL, COMPARE_RTOL, compare_gradients, gradient_report
from bookkit import checked, given, observed, text

rng = np.random.default_rng(0)
W, b = rng.standard_normal((3, 2)), rng.standard_normal(2)
x = rng.standard_normal((4, 3))
# --8<-- [start:call]
# loss = sum(tanh(x @ W + b)); the reference gradients come from an engine you trust
y = np.tanh(x @ W + b)
dz = 1.0 - y**2
reference = {"W": x.T @ dz, "b": dz.sum(axis=0)}
mine = {
    "W": np.einsum("ni,nj->ij", x, dz),  # the same sums, maybe in another order
    "b": dz.sum(axis=0, keepdims=True),  # shape (1, 2): the tempting keepdims
}
report = gradient_report(compare_gradients(mine, reference))
# --8<-- [end:call]
print(observed(report))
print()

diffs = compare_gradients(mine, reference)
# Independent checks of what the printout says. W: the same products summed, perhaps in another
# order, so equal within a few roundings of the sum of absolute terms.
w_gap = float(np.max(np.abs(mine["W"] - reference["W"])))
assert w_gap <= 8 * np.finfo(float).eps * float(np.max(np.abs(x.T) @ np.abs(dz)))
assert diffs[0].verdict == ("exact" if w_gap == 0 else "approximate")
assert diffs[0].max_abs_diff == w_gap
# b: named as a shape mismatch, although np.allclose broadcasts (1, 2) against (2,) and passes it
assert (diffs[1].verdict, diffs[1].shape, diffs[1].reference_shape) == ("shape mismatch", (1, 2), (2,))
assert np.allclose(mine["b"], reference["b"])
print(
    text(
        "Shapes are compared first: `np.allclose` alone would broadcast the {mine_shape} gradient against "
        "the {ref_shape} reference and call them close ({allclose}), and so would the lecture's `cmp`, "
        "whose `torch.allclose` and `torch.all(dt == t.grad)` broadcast too: it reports such a gradient "
        "as exact. Values are then compared entry by "
        "entry with $|m - r| \\le \\mathrm{{atol}} + \\mathrm{{rtol}}\\,|r|$, rtol = {rtol} and "
        "atol = {atol}, the defaults of PyTorch's `torch.allclose`."
        "\n<!-- tested: tests/engine/test_test_util.py::"
        "test_compare_gradients_default_tolerance_is_torch_allclose_default -->"
        "\n<!-- tested: tests/snippets/test_your_own_backward.py::"
        "test_lecture_cmp_passes_a_keepdims_gradient_that_compare_gradients_flags -->",
        allclose=checked(
            bool(np.allclose(mine["b"], reference["b"])),
            against=bool(np.all(np.abs(mine["b"] - reference["b"]) <= 1e-8 + 1e-5 * np.abs(reference["b"]))),
        ),
        mine_shape=checked(diffs[1].shape, against=np.shape(mine["b"])),
        ref_shape=checked(diffs[1].reference_shape, against=np.shape(reference["b"])),
        rtol=given(COMPARE_RTOL, shown_as=lambda v: f"{v:g}"),
        atol=given(COMPARE_ATOL, shown_as=lambda v: f"{v:g}"),
    )
)
