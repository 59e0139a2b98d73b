"""A first gradient, checked: run `python snippets/overview/first_gradient.py` to see this
snippet print the Markdown the page shows."""

import numpy as np

from ad_core import grad
from ad_core import numpy as anp
from bookkit import fmt_array, md_table

# --8<-- [start:example]
x = np.array([0.5, -1.0, 2.0])


def loss(w):
    return anp.sum(anp.tanh(w * x) ** 2)


w = np.array([1.0, 0.3, -0.7])
gradient = grad(loss)(w)  # an array of w's shape
# --8<-- [end:example]

step = 1e-6
central = np.array([(loss(w + step * e) - loss(w - step * e)) / (2 * step) for e in np.eye(3)])
closed_form = 2 * np.tanh(w * x) * (1 - np.tanh(w * x) ** 2) * x
assert gradient.shape == w.shape
assert np.allclose(gradient, closed_form, rtol=1e-14)
assert np.allclose(gradient, central, rtol=1e-8)

print(
    md_table(
        ["", "value", "shape"],
        [
            ["`grad(loss)(w)`", fmt_array(gradient), f"`{gradient.shape}`"],
            [
                "closed form $2 \\tanh(w x)(1 - \\tanh^2(w x))\\, x$",
                fmt_array(closed_form),
                f"`{closed_form.shape}`",
            ],
            ["central differences, step $10^{-6}$", fmt_array(central, 6), f"`{central.shape}`"],
        ],
    )
)
