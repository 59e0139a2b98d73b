"""Why a gradient comparison checks the shape before the values."""

import numpy as np

from bookkit import assert_shape_then_close, checked, given, md_table, text

cases = [
    ("a {computed} gradient for a {expected} parameter", np.array([1.0, 2.0, 3.0]),
     np.array([[1.0, 2.0, 3.0]])),
    ("a {computed} gradient (not reduced) for a {expected} bias", np.array([[2.0, 2.0, 2.0]] * 2),
     np.array([2.0, 2.0, 2.0])),
    ("a scalar gradient for a {expected} parameter", np.array(4.0), np.array([4.0, 4.0, 4.0])),
    ("the right shape, the right values", np.array([1.0, 2.0]), np.array([1.0, 2.0])),
]


def close_after_broadcasting(a, b):
    """np.allclose's test written out: broadcast both, then |a - b| <= atol + rtol |b| everywhere."""
    a, b = np.broadcast_arrays(a, b)
    return bool(np.all(np.abs(a - b) <= 1e-8 + 1e-5 * np.abs(b)))


rows = []
for description, computed, expected in cases:
    try:
        assert_shape_then_close(computed, expected)
        verdict = "passes"
    except AssertionError as error:
        verdict = "fails: " + str(error).splitlines()[0]
    same_shape = computed.shape == expected.shape
    expected_verdict = "passes" if same_shape else (
        f"fails: shape {computed.shape} differs from expected {expected.shape}"
    )
    fields = {name: given(array.shape) for name, array in [("computed", computed), ("expected", expected)]
              if "{" + name + "}" in description}
    rows.append([
        text(description, **fields),
        given(computed.shape),
        given(expected.shape),
        # The point of the table: np.allclose broadcasts, so it says True for every case.
        checked(bool(np.allclose(computed, expected)), against=close_after_broadcasting(computed, expected),
                shown_as=lambda flag: f"`{flag}`"),
        checked(verdict, against=expected_verdict),
    ])
    assert np.allclose(computed, expected)

print(md_table(["computed", "shape", "expected shape", "`np.allclose`",
                "`assert_shape_then_close`"], rows))
