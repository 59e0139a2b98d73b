"""The live source of unbroadcast, with the lines of its three reducing stages highlighted."""

import inspect

from ad_core.numpy.vjps import unbroadcast
from bookkit import checked, show_source, text
from bookkit.source import source_line

# The stage lines are found in the live source, never typed as numbers.
path, leading_line, _ = source_line(unbroadcast, r"x = anp\.sum\(x, axis=broadcast_idx\)")
_, keepdims_line, _ = source_line(unbroadcast, r"anp\.sum\(x, axis=axis, keepdims=True\)")
_, real_line, _ = source_line(unbroadcast, r"x = anp\.real\(x\)")
assert leading_line < keepdims_line < real_line

# An early `return x` before the first stage is a shortcut for the common, unbroadcast case.
_, first_line, _ = source_line(unbroadcast, r"def unbroadcast")
body = inspect.getsource(unbroadcast).splitlines()
early_returns = [
    first_line + offset
    for offset, line in enumerate(body)
    if line.strip().startswith("return x") and first_line + offset < leading_line
]

# Counted in the source another way: the primitive calls that are the stages.
source = inspect.getsource(unbroadcast)
stage_calls = source.count("anp.sum(") + source.count("anp.real(")
assert "recorder" not in source, "unbroadcast must not contain recording code"
print(show_source(unbroadcast, hl_lines=[leading_line, keepdims_line, real_line]))
print()
print(
    text(
        "The highlighted lines {leading}, {keepdims} and {real} of {path} are the three stages: the "
        "leading sum, the keepdims sum, and the step back to real numbers. Each is one of "
        "{calls} primitive calls, and that is all the state tables below need: the "
        "[recorder](../reference/glossary.md#recorder) watches `unbroadcast` from outside and "
        "keeps a copy of what each call returns, so the function holds no recording code.",
        leading=checked(
            leading_line,
            against=first_line
            + next(i for i, line in enumerate(body) if "axis=broadcast_idx)" in line and "anp.sum" in line),
        ),
        keepdims=checked(
            keepdims_line,
            against=first_line + next(i for i, line in enumerate(body) if "keepdims=True" in line),
        ),
        real=checked(
            real_line, against=first_line + next(i for i, line in enumerate(body) if "anp.real(" in line)
        ),
        path=f"`{path}`",
        calls=checked(stage_calls, against=len([leading_line, keepdims_line, real_line])),
    )
)
if early_returns:
    print()
    print(
        text(
            "Line {line} is a shortcut: when `x` is a plain `ndarray` that already has the "
            "target's shape (and no imaginary part has to go), nothing was broadcast, so `x` is "
            "returned at once and no stage is recorded. That is the common case of two inputs of "
            "the same shape, but not every one: a cotangent that is a Python or NumPy scalar "
            "(two scalar inputs) or a box (a gradient being differentiated again) goes through "
            "the stages, which then sum nothing.",
            line=checked(
                early_returns[0],
                against=first_line
                + next(
                    i
                    for i, line in enumerate(body)
                    if line.strip().startswith("return x  # nothing was broadcast")
                ),
            ),
        )
    )
