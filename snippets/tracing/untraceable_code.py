"""Code that would silently leave the trace, and what the engine says when you write it."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit import checked, md_table, text


def through_float(x):
    return anp.sin(float(x))


def into_ndarray(x):
    out = np.zeros(2)
    out[0] = x  # writes a box into a plain array
    return anp.sum(out)


def in_place_add(x):
    total = np.zeros(3)
    total += x
    return anp.sum(total)


def via_numpy_ufunc(x):
    return np.sin(x) * 2.0  # a NumPy ufunc meets a box and hands it to anp.sin


attempts = [
    ("`anp.sin(float(x))`", through_float, 0.5),
    ("`out[0] = x` into `np.zeros(2)`", into_ndarray, 0.5),
    ("`total += x` into `np.zeros(3)`", in_place_add, np.ones(3)),
    ("`np.sin(x) * 2.0`", via_numpy_ufunc, 0.5),
]
rows = []
outcomes = {}
for label, function, value in attempts:
    try:
        result = grad(function)(value)
    except (TypeError, ValueError) as error:
        # NumPy may wrap the engine's error in its own; the engine's message is the cause.
        engine_error = error.__cause__ if error.__cause__ is not None else error
        assert "ad_core" in str(engine_error), "the error must come from the engine"
        outcomes[label] = "error"
        first_sentence = str(engine_error).split(". ")[0].removeprefix("ad_core: ")
        rows.append(
            [
                label,
                f"`{type(error).__name__}`",
                # The engine's own words, as it raised them.
                first_sentence.replace("|", "\\|") + ".",
            ]
        )
    else:
        outcomes[label] = result
        rows.append(
            [
                label,
                "traced",
                text("grad = `{g:.6f}`", g=checked(result, against=2 * np.cos(value), rtol=1e-15)),
            ]
        )

assert outcomes["`anp.sin(float(x))`"] == "error"
assert outcomes["`out[0] = x` into `np.zeros(2)`"] == "error"
assert outcomes["`total += x` into `np.zeros(3)`"] == "error"
print(md_table(["code inside the function", "outcome", "what the engine says"], rows))
