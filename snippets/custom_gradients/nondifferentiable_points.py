"""What ad_core, PyTorch 2.13 and JAX 0.10.2 return at a tie of max, abs at 0 and ReLU at 0."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import checked, given, md_table, text

PYTORCH, JAX = "PyTorch 2.13", "JAX 0.10.2"
tie = np.array([1.0, 3.0, 3.0])
winners = tie == tie.max()

# --8<-- [start:points]
points = {
    "`max(x)` at a tie": grad(anp.max)(tie),
    "`abs(x)` at zero": grad(anp.abs)(0.0),
    "`maximum(x, 0.0)` at zero": grad(lambda x: anp.maximum(x, 0.0))(0.0),
}
# --8<-- [end:points]
# The conventions, computed without the engine: split among the winners, sign(0), half.
conventions = [winners / winners.sum(), np.sign(0.0), 0.5]
# Recorded from runs of the two libraries. They are not imported here (the book builds with
# NumPy alone); tests/snippets/test_custom_gradients.py runs them and requires these values.
OTHER_SYSTEMS = {
    PYTORCH: ["`[0, 0.5, 0.5]` (`x.max()`); `[0, 1, 0]` (`x.max(dim=0)`)", "`0`", "`0.5`; `relu`: `0`"],
    JAX: ["`[0, 0.5, 0.5]`", "`1`", "`0.5`; `jax.nn.relu`: `0`"],
}
TEST = "tests/snippets/test_custom_gradients.py::"
MARKER = {PYTORCH: f"<!-- tested: {TEST}test_pytorch_at_nondifferentiable_points -->",
          JAX: f"<!-- tested: {TEST}test_jax_at_nondifferentiable_points -->"}
rows = [
    [name, checked(value, against=convention),
     given(OTHER_SYSTEMS[PYTORCH][i], shown_as=lambda cell: cell + " " + MARKER[PYTORCH]),
     given(OTHER_SYSTEMS[JAX][i], shown_as=lambda cell: cell + " " + MARKER[JAX])]
    for i, ((name, value), convention) in enumerate(zip(points.items(), conventions, strict=True))
]
print(md_table(["point", "`ad_core`", text("{n} " + MARKER[PYTORCH], n=given(PYTORCH)),
                text("{n} " + MARKER[JAX], n=given(JAX))], rows))
print()
print(text(
    "The tie is `x` = {tie}. At a tie the engine splits the cotangent equally among the {k} "
    "winners. Any choice in the subdifferential (here, any convex combination of the winners' "
    "unit vectors) is a valid "
    "subgradient; {torch} splits for the full reduction but gives the whole cotangent to one "
    "index when `max` also returns indices, and {jax} takes the right-hand slope for `abs` at zero "
    "where the engine and {torch} take `sign(0)`. Code that lands exactly on such a point (a "
    "ReLU fed zeros, a padded row of equal values) gets different gradients from different systems.\n"
    "<!-- tested: tests/snippets/test_custom_gradients.py::test_pytorch_at_nondifferentiable_points -->\n"
    "<!-- tested: tests/snippets/test_custom_gradients.py::test_jax_at_nondifferentiable_points -->",
    k=checked(int(np.count_nonzero(points["`max(x)` at a tie"])), against=int(winners.sum())),
    tie=given(tie), torch=given(PYTORCH), jax=given(JAX),
))

# A program of such rules: relu(x) - relu(-x) is the identity, derivative 1 at every point.
identity_at_zero = float(grad(lambda x: anp.maximum(x, 0.0) - anp.maximum(-x, 0.0))(0.0))
# Recorded from the two libraries' relu (tests/snippets/test_custom_gradients.py runs them).
IDENTITY_AT_ZERO = {PYTORCH: 0.0, JAX: 0.0}
print()
print(text(
    "Each primitive's rule picks one subgradient, but a program of such rules can return a number "
    "that is no subgradient of the program. `relu(x) - relu(-x)` is the identity, with derivative "
    "{one} everywhere. At zero the engine returns {ours}, because its half-split at the two kinks "
    "adds up; {torch}'s `relu` and {jax}'s `jax.nn.relu` give {theirs}. Kakade and Lee study when "
    "such a program's derivative can be trusted ([*Provably Correct Automatic Subdifferentiation "
    "for Qualified Programs*](https://arxiv.org/abs/1809.08530)).\n"
    + f"<!-- tested: {TEST}test_relu_identity_at_zero_in_pytorch_and_jax -->",
    one=given(1.0, shown_as=lambda v: f"{v:g}"),
    ours=checked(identity_at_zero, against=0.5 + 0.5, shown_as=lambda v: f"{v:g}"),
    torch=given(PYTORCH), jax=given(JAX),
    theirs=given(IDENTITY_AT_ZERO[PYTORCH], shown_as=lambda v: f"{v:g}"),
))
assert IDENTITY_AT_ZERO[PYTORCH] == IDENTITY_AT_ZERO[JAX]
