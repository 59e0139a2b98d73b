"""Why a gradient comparison checks the shape before the values."""

import numpy as np

from bookkit import assert_shape_then_close, md_table

cases = [
    ("a `(3,)` gradient for a `(1, 3)` parameter", np.array([1.0, 2.0, 3.0]),
     np.array([[1.0, 2.0, 3.0]])),
    ("a `(2, 3)` gradient (not reduced) for a `(3,)` bias", np.array([[2.0, 2.0, 2.0]] * 2),
     np.array([2.0, 2.0, 2.0])),
    ("a scalar gradient for a `(3,)` parameter", np.array(4.0), np.array([4.0, 4.0, 4.0])),
    ("the right shape, the right values", np.array([1.0, 2.0]), np.array([1.0, 2.0])),
]

rows = []
for description, computed, expected in cases:
    allclose = bool(np.allclose(computed, expected))
    try:
        assert_shape_then_close(computed, expected)
        verdict = "passes"
    except AssertionError as error:
        verdict = f"fails: {str(error).splitlines()[0]}"
    rows.append([description, f"`{computed.shape}`", f"`{expected.shape}`",
                 "`True`" if allclose else "`False`", verdict])
    # The point of the table: np.allclose says True for every case, shapes or not.
    assert allclose
    assert (verdict == "passes") == (computed.shape == expected.shape)

print(md_table(["computed", "shape", "expected shape", "`np.allclose`",
                "`assert_shape_then_close`"], rows))
